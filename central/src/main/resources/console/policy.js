// The edge's policy sections as the shared policy module describes them (central serves the
// descriptions at /schemas/overload-policy.json, /schemas/rate-limits-policy.json and
// /schemas/access-log-policy.json): fields with
// their ranges, patterns, defaults, environment variables and central's own messages, and the
// rules between fields. Nothing about a field is written here; everything comes from those
// descriptions, so the editors check exactly what central checks.

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** The names of the modes, as the console shows them. */
export const MODE_NAMES = { off: 'Off', shadow: 'Shadow', enforce: 'Enforce' };

/** The descriptions central serves, by name. */
export const SCHEMAS = { overload: 'overload-policy', rateLimits: 'rate-limits-policy', accessLog: 'access-log-policy' };

const described = new Map();

/** Fetches the description /schemas/<name>.json once. */
export async function loadSchema(name) {
  if (!described.has(name)) {
    const response = await fetch(`/schemas/${name}.json`, { credentials: 'same-origin' });
    if (!response.ok) {
      throw new Error(`central answered ${response.status} for the schema ${name}`);
    }
    described.set(name, await response.json());
  }
  return described.get(name);
}

/** A value as central writes it in messages: modes in JSON spelling, numbers as their shortest decimal. */
export function formatValue(value) {
  if (typeof value === 'boolean') {
    return value ? 'on' : 'off';
  }
  return String(value);
}

/**
 * A value of a field's type (enum, boolean, integer, number) from trimmed text, without the range
 * check: { value }, or { problem } with the field's type message (its range message for a number
 * too large to be finite). messages: the field's messages, filled in for where it is.
 */
export function readValue(field, text, messages) {
  switch (field.type) {
    case 'enum':
      return field.allowedValues.includes(text.toLowerCase()) ? { value: text.toLowerCase() } : { problem: messages.type };
    case 'boolean':
      if (text.toLowerCase() === 'true') {
        return { value: true };
      }
      return text.toLowerCase() === 'false' ? { value: false } : { problem: messages.type };
    case 'integer':
    case 'number': {
      if (!JSON_NUMBER.test(text)) {
        return { problem: messages.type };
      }
      const number = Number(text);
      if (!Number.isFinite(number)) {
        return { problem: messages.range };
      }
      if (field.type === 'integer' && !Number.isInteger(number)) {
        return { problem: messages.type };
      }
      return { value: number === 0 ? 0 : number };
    }
    default:
      return { problem: messages.type };
  }
}

/** Whether a value lies in its field's range (fields without one: always). */
export function inRange(field, value) {
  if (field.type !== 'integer' && field.type !== 'number') {
    return true;
  }
  return value >= field.min && value <= field.max;
}

/** Reads the value at a dotted path of a policy object, or undefined. */
function readPath(policy, path) {
  let node = policy;
  for (const segment of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(segment in node)) {
      return undefined;
    }
    node = node[segment];
  }
  return node === null ? undefined : node;
}

/**
 * One edge's view of the policy: the described fields, what each falls back to on this edge (the
 * variable the edge reported, else the built-in default), and validation with central's rules.
 */
export class PolicyModel {
  /**
   * @param schema the description from central
   * @param reportedDefaults the edge's status.reportedDefaults (variable name → text), or null when
   *     the edge has not reported them
   */
  constructor(schema, reportedDefaults) {
    this.schema = schema;
    this.fields = schema.fields;
    this.reported = reportedDefaults;
    this.byPath = new Map(this.fields.map((field) => [field.path, field]));
  }

  /** The fields of one section (inbound, outbound), in table order. */
  sectionFields(section) {
    return this.fields.filter((field) => field.section === section);
  }

  /** The label and hint of an object that holds fields (a section or a group such as inbound.adaptive). */
  group(path) {
    return (this.schema.groups || []).find((group) => group.path === path) || { path, label: path, hint: '' };
  }

  /**
   * What a field takes on this edge when the policy leaves it out.
   * Answers { value, fromEnvironment, builtIn }.
   */
  fallback(field) {
    const builtIn = field.default;
    if (field.env && this.reported && this.reported[field.env] !== undefined && this.reported[field.env] !== null) {
      const read = this.readText(field, String(this.reported[field.env]).trim());
      if (read.value !== undefined) {
        return { value: read.value, fromEnvironment: true, builtIn };
      }
    }
    return { value: builtIn, fromEnvironment: false, builtIn };
  }

  /**
   * Reads what an operator typed or chose for a field. Answers { value } for a usable value,
   * { empty: true } for nothing, or { problem } with central's message for that field: the type
   * message when the text is not a value of the field's type, the range message when it is
   * outside the range.
   */
  readInput(field, text) {
    const trimmed = text.trim();
    if (trimmed === '') {
      return { empty: true };
    }
    const read = this.readText(field, trimmed);
    if (read.problem) {
      return read;
    }
    if (!this.inRange(field, read.value)) {
      return { problem: field.messages.range };
    }
    return read;
  }

  /** A value of the field's type from text, without the range check. */
  readText(field, text) {
    return readValue(field, text, field.messages);
  }

  inRange(field, value) {
    return inRange(field, value);
  }

  /**
   * Checks typed values (path → value, only the fields filled in) as central does: every field's
   * own range, then each rule between two fields on their effective values (a field left out
   * takes its fallback), skipped when one of its fields already has a problem. A rule's problem is
   * reported where central reports it: at its lesser field when that is set, else at the greater.
   * Answers a Map path → [messages]; own problems are passed in as inputProblems (path → message).
   */
  validate(values, inputProblems = new Map()) {
    const problems = new Map();
    const add = (path, message) => {
      problems.set(path, [...(problems.get(path) || []), message]);
    };
    for (const [path, message] of inputProblems) {
      add(path, message);
    }
    for (const [path, value] of values) {
      const field = this.byPath.get(path);
      if (!this.inRange(field, value)) {
        add(path, field.messages.range);
      }
    }
    for (const rule of this.schema.rules) {
      if (problems.has(rule.lesser) || problems.has(rule.greater)) {
        continue;
      }
      const lesser = this.effective(rule.lesser, values);
      const greater = this.effective(rule.greater, values);
      if (lesser > greater) {
        const at = values.has(rule.lesser) ? rule.lesser : rule.greater;
        add(at, rule.message
          .replace(`{${rule.lesser}}`, formatValue(lesser))
          .replace(`{${rule.greater}}`, formatValue(greater)));
      }
    }
    return problems;
  }

  effective(path, values) {
    return values.has(path) ? values.get(path) : this.fallback(this.byPath.get(path)).value;
  }

  /** The values a stored policy sets, path → value, in table order. */
  valuesOf(policy) {
    const values = new Map();
    if (!policy) {
      return values;
    }
    for (const field of this.fields) {
      const value = readPath(policy, field.path);
      if (value !== undefined) {
        values.set(field.path, value);
      }
    }
    return values;
  }

  /** The policy object holding exactly these values (path → value), nested as the API takes it. */
  policyOf(values) {
    const policy = {};
    for (const field of this.fields) {
      if (!values.has(field.path)) {
        continue;
      }
      const segments = field.path.split('.');
      let node = policy;
      for (const segment of segments.slice(0, -1)) {
        node[segment] = node[segment] || {};
        node = node[segment];
      }
      node[segments[segments.length - 1]] = values.get(field.path);
    }
    return policy;
  }

  /**
   * The fields a stored policy sets, each with the value it would have without the policy:
   * [{ field, value, fallback, differs }] in table order.
   */
  setFields(policy) {
    const set = [];
    for (const [path, value] of this.valuesOf(policy)) {
      const field = this.byPath.get(path);
      const fallback = this.fallback(field);
      set.push({ field, value, fallback, differs: fallback.value !== value });
    }
    return set;
  }
}

/**
 * A message template of a description with its placeholders ({i}, {j}, …) filled in, in the order
 * given; a value is inserted as it is (a function replacement, so "$&" in a value stays "$&").
 */
function fill(template, values) {
  return Object.entries(values).reduce((text, [name, value]) => text.replaceAll(`{${name}}`, () => String(value)), template);
}

/**
 * The rateLimits section as its description gives it: a list of limits, each with the same
 * fields; validation limit by limit in table order, then the repeated names, with central's
 * messages for the limit's index.
 */
export class RateLimitsModel {
  constructor(schema) {
    this.schema = schema;
    this.fields = schema.fields;
    this.maxLimits = schema.maxLimits;
    this.byKey = new Map(this.fields.map((field) => [field.key, field]));
    this.patterns = new Map(this.fields.filter((field) => field.pattern).map((field) => [field.key, new RegExp(`^(?:${field.pattern})$`)]));
    const exempt = this.fields.find((field) => field.entries);
    this.addressPattern = exempt ? new RegExp(`^(?:${exempt.entries.addressPattern})$`) : null;
  }

  /** The limits of a stored section (an empty list when there is none). */
  limitsOf(section) {
    return section && Array.isArray(section.limits) ? section.limits : [];
  }

  /** A field's value as an input shows it: a list one entry a line, anything else as text; '' when absent. */
  inputText(field, value) {
    if (value === undefined || value === null) {
      return '';
    }
    return Array.isArray(value) ? value.join('\n') : String(value);
  }

  /** The entries of a list field's text: one a line, blank lines skipped. */
  entries(text) {
    return text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  }

  /**
   * Checks what was typed for each limit (an array of Maps key → text) as central checks it.
   * Answers { limits, problems }: the limits as the API takes them (empty fields left out), and
   * for each limit a Map key → [messages].
   */
  check(typed) {
    const limits = [];
    const problems = typed.map(() => new Map());
    typed.forEach((texts, index) => {
      const limit = {};
      const add = (key, message) => {
        problems[index].set(key, [...(problems[index].get(key) || []), message]);
      };
      for (const field of this.fields) {
        const messages = Object.fromEntries(Object.entries(field.messages)
          .filter(([, template]) => typeof template === 'string')
          .map(([kind, template]) => [kind, fill(template, { i: index })]));
        const text = (texts.get(field.key) || '').trim();
        if (text === '') {
          if (field.required) {
            add(field.key, messages.required);
          }
          continue;
        }
        const read = this.readField(field, text, messages, limit);
        if (read.problem) {
          add(field.key, read.problem);
        }
        if (read.value !== undefined) {
          limit[field.key] = read.value;
        }
      }
      limits.push(limit);
    });
    const unique = this.schema.uniqueField;
    const first = new Map();
    limits.forEach((limit, index) => {
      const name = limit[unique];
      if (name === undefined || problems[index].has(unique)) {
        return;
      }
      if (first.has(name)) {
        problems[index].set(unique, [fill(this.schema.duplicateMessage, { i: index, name, first: first.get(name) })]);
      } else {
        first.set(name, index);
      }
    });
    return { limits, problems };
  }

  /** One field's value from its text (not empty): { value } and/or { problem }. */
  readField(field, text, messages, limit) {
    switch (field.type) {
      case 'string':
        return this.patterns.get(field.key).test(text) ? { value: text } : { value: text, problem: messages.pattern };
      case 'stringList': {
        const entries = this.entries(text);
        if (entries.length === 0) {
          return {};
        }
        if (entries.length > field.max) {
          return { problem: messages.range };
        }
        const addresses = limit.key === field.entries.addressKey && this.patterns.get('key').test(limit.key);
        const tiers = limit.key === field.entries.tierKey;
        for (const [j, entry] of entries.entries()) {
          if (entry.length < field.entries.minLength || entry.length > field.entries.maxLength) {
            return { problem: fill(messages.entryLength, { j }) };
          }
          if (addresses && !this.addressPattern.test(entry)) {
            return { problem: fill(messages.entryAddress, { j }) };
          }
          if (tiers && !field.entries.tiers.includes(entry)) {
            return { problem: fill(messages.entryTier, { j }) };
          }
        }
        return { value: entries };
      }
      default: {
        const read = readValue(field, text, messages);
        if (read.problem) {
          return read;
        }
        return inRange(field, read.value) ? read : { problem: messages.range };
      }
    }
  }
}

/**
 * The accessLog section as its description gives it: the format (Envoy's default, a format string
 * or a JSON format of keys to format strings), the filters, the destination. check() reads what
 * the editor's form holds and answers the section with central's messages for what breaks a rule;
 * the format check walks the string as the policy module does, against the description's list of
 * operators (the edge's own).
 */
export class AccessLogModel {
  constructor(schema) {
    this.schema = schema;
    this.byKey = new Map(schema.fields.map((field) => [field.key, field]));
    this.operators = new Set(schema.operators);
    this.segment = new RegExp(`^(?:${schema.pathSegmentPattern})$`);
  }

  /** The field of a key such as filters.statusCode.value. */
  field(key) {
    return this.byKey.get(key);
  }

  /** central's message for a format string at path, or null when it is well formed. */
  formatProblem(path, text) {
    const templates = this.schema.formatProblems;
    if (text.length === 0 || text.length > this.schema.maxFormatLength) {
      return fill(templates.length, { path });
    }
    const at = (template, position, name) => fill(template, { position, name, path });
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (text[i] !== '%') {
        i += 1;
        continue;
      }
      const start = i;
      let j = i + 1;
      while (j < n && /[A-Z0-9_]/.test(text[j])) {
        j += 1;
      }
      const name = text.slice(i + 1, j);
      if (j < n && text[j] === '(') {
        const close = text.indexOf(')', j + 1);
        if (close < 0) {
          return at(templates.unclosedArgument, start, name);
        }
        j = close + 1;
      }
      if (j < n && text[j] === ':') {
        let k = j + 1;
        while (k < n && text[k] >= '0' && text[k] <= '9') {
          k += 1;
        }
        if (k === j + 1 || k - j - 1 > 9) {
          return at(templates.noMaxLength, start, name);
        }
        j = k;
      }
      if (name === '' || j >= n || text[j] !== '%') {
        return at(templates.unterminated, start, name);
      }
      if (!this.operators.has(name)) {
        return at(templates.unknownOperator, start, name);
      }
      i = j + 1;
    }
    return null;
  }

  /** central's message for a file destination's path, or null. */
  pathProblem(text) {
    const templates = this.schema.pathProblems;
    if (text.length === 0 || text.length > this.schema.maxPathLength) {
      return templates.length;
    }
    if (text.startsWith('/') || text.startsWith('\\') || (text.length > 1 && text[1] === ':')) {
      return templates.absolute;
    }
    for (const segment of text.split('/')) {
      if (segment === '.' || segment === '..') {
        return templates.dotSegment;
      }
      if (!this.segment.test(segment)) {
        return templates.segments;
      }
    }
    return null;
  }

  /**
   * What the editor's form starts from for a stored section (null: none): { kind: 'default' |
   * 'format' | 'json', format, json: [{ key, value }], statusCode: { op, value }, duration: { op,
   * millis }, notHealthCheck, flagsMode: 'none' | 'any' | 'some', flags, destination: '' |
   * 'stdout' | 'stderr' | 'file', file }, every value as text.
   */
  inputOf(section) {
    const s = section || {};
    const filters = s.filters || {};
    const text = (value) => (value === undefined || value === null ? '' : String(value));
    const destination = s.destination;
    return {
      kind: typeof s.format === 'string' ? 'format' : s.json ? 'json' : 'default',
      format: text(s.format),
      json: s.json ? Object.entries(s.json).map(([key, value]) => ({ key, value: text(value) })) : [],
      statusCode: { op: text(filters.statusCode && filters.statusCode.op), value: text(filters.statusCode && filters.statusCode.value) },
      duration: { op: text(filters.duration && filters.duration.op), millis: text(filters.duration && filters.duration.millis) },
      notHealthCheck: filters.notHealthCheck === true,
      flagsMode: Array.isArray(filters.responseFlags) ? (filters.responseFlags.length === 0 ? 'any' : 'some') : 'none',
      flags: Array.isArray(filters.responseFlags) ? filters.responseFlags : [],
      destination: destination === undefined || destination === null ? ''
        : typeof destination === 'string' ? destination : 'file',
      file: destination && typeof destination === 'object' ? text(destination.file) : '',
    };
  }

  /**
   * Checks the form's input (as inputOf gives it) as central checks the section. Answers
   * { section, problems }: the section as the API takes it (what is left empty is left out) and a
   * Map from the input's place ('format', 'json', 'json.<row>.key', 'json.<row>.value',
   * 'filters.statusCode.value', 'filters.duration.millis', 'filters.responseFlags',
   * 'destination.file') to its messages, in the order central finds them.
   */
  check(input) {
    const section = {};
    const problems = new Map();
    const add = (place, message) => {
      problems.set(place, [...(problems.get(place) || []), message]);
    };
    const messages = this.schema.messages;
    if (input.kind === 'format') {
      section.format = input.format;
      const problem = this.formatProblem(this.field('format').path, input.format);
      if (problem) {
        add('format', problem);
      }
    } else if (input.kind === 'json') {
      const field = this.field('json');
      if (input.json.length === 0 || input.json.length > field.max) {
        add('json', field.messages.range);
      }
      const json = {};
      const firstRow = new Map();
      input.json.forEach(({ key, value }, row) => {
        if (key.length === 0 || key.length > this.schema.maxJsonKeyLength) {
          add(`json.${row}.key`, messages.jsonKeyLength);
          return;
        }
        if (firstRow.has(key)) {
          // A JSON object holds a key once; two rows with one key would lose one of them.
          add(`json.${row}.key`, `${field.path}.${key} is in row ${firstRow.get(key) + 1} already; each key once`);
          return;
        }
        firstRow.set(key, row);
        const problem = this.formatProblem(`${field.path}.${key}`, value);
        if (problem) {
          add(`json.${row}.value`, problem);
        }
        json[key] = value;
      });
      section.json = json;
    }
    const filters = {};
    this.comparison(input.statusCode.op, input.statusCode.value, 'filters.statusCode', 'value', filters, 'statusCode', add);
    this.comparison(input.duration.op, input.duration.millis, 'filters.duration', 'millis', filters, 'duration', add);
    if (input.notHealthCheck) {
      filters.notHealthCheck = true;
    }
    if (input.flagsMode === 'any') {
      filters.responseFlags = [];
    } else if (input.flagsMode === 'some') {
      const allowed = this.field('filters.responseFlags').allowedValues;
      const flags = allowed.filter((flag) => input.flags.includes(flag));
      input.flags.forEach((flag, i) => {
        if (!allowed.includes(flag)) {
          add('filters.responseFlags', fill(messages.unknownFlag, { i, flag }));
        }
      });
      if (flags.length === 0) {
        add('filters.responseFlags', 'Choose at least one response flag, or "Any response flag".');
      }
      filters.responseFlags = flags;
    }
    if (Object.keys(filters).length > 0) {
      section.filters = filters;
    }
    if (input.destination === 'stdout' || input.destination === 'stderr') {
      section.destination = input.destination;
    } else if (input.destination === 'file') {
      section.destination = { file: input.file };
      const problem = this.pathProblem(input.file);
      if (problem) {
        add('destination.file', problem);
      }
    }
    return { section, problems };
  }

  /** One comparison filter from its op and value text: left out when both are empty. */
  comparison(op, text, prefix, member, filters, name, add) {
    const field = this.field(`${prefix}.${member}`);
    const trimmed = text.trim();
    if (op === '' && trimmed === '') {
      return;
    }
    const filter = {};
    if (op !== '') {
      filter.op = op;
    }
    if (trimmed === '') {
      add(`${prefix}.${member}`, field.messages.required);
    } else {
      const read = readValue(field, trimmed, field.messages);
      if (read.problem) {
        add(`${prefix}.${member}`, read.problem);
      } else if (!inRange(field, read.value)) {
        add(`${prefix}.${member}`, field.messages.range);
      } else {
        filter[member] = read.value;
      }
    }
    filters[name] = filter;
  }
}
