// The Access log card's text and the "Edit access log" side panel: the edge's accessLog section
// (one more access log beside the bootstrap's) — the format (Envoy's default, a format string or
// a JSON format), the filters and the destination — with every field of the shared description
// labelled, validation as you type with central's messages (Save stays disabled while one is
// shown), Save (the section alone, with expectedRevisions), Remove the access log (after
// confirmation) and Cancel (discards).

import { h, replace } from './dom.js';
import { deleteFromEditor, deleteSection, drawerForm, fieldBlock, openDrawer, saveSection, showProblems } from './editor.js';

const SECTION = 'accessLog';
const WHAT = 'access log';

/** The destinations as the editor offers them ('' leaves the field out: standard output). */
const DESTINATIONS = [
  ['', 'Default (stdout)'],
  ['stdout', 'Standard output (stdout)'],
  ['stderr', 'Standard error (stderr)'],
  ['file', 'A file under the edge\'s access log directory'],
];

/** Opens the editor; resolves as openEditor (editor.js) does. */
export function openAccessLogEditor({ edgeId, model, policy, revision, reloadPolicies }) {
  return openDrawer({
    section: SECTION, policy, revision, reloadPolicies,
    form: (context) => accessLogForm({ edgeId, model, ...context }),
  });
}

/** Asks for confirmation, then sends "accessLog": null; resolves as deleteSection does. */
export function removeAccessLog({ edgeId, revision }) {
  return deleteSection({
    edgeId, section: SECTION, revision,
    title: 'Remove the access log',
    message: `Delete the access log set on ${edgeId}? The edge stops writing it; the access logs of its `
      + 'bootstrap stay as they are.',
    confirmLabel: 'Remove the access log',
    refused: 'Not removed',
    done: (at) => `Removed: no access log is set on this edge (revision ${at}).`,
  });
}

/** The card's facts for a stored section: [{ key, label, value: node or text }]. */
export function accessLogFacts(model, section) {
  const filters = section.filters || {};
  const lines = [];
  // A comparison as "op value", its op the default (>=) when the section leaves it out.
  const comparison = (name, member, unit) => {
    const filter = filters[name];
    const op = filter.op || model.field(`filters.${name}.op`).default;
    return `${op} ${filter[member]}${unit}`;
  };
  if (filters.statusCode) {
    lines.push(h('li', { 'data-filter': 'statusCode' }, 'Status code ', h('code', { text: comparison('statusCode', 'value', '') })));
  }
  if (filters.duration) {
    lines.push(h('li', { 'data-filter': 'duration' }, 'Duration ', h('code', { text: comparison('duration', 'millis', ' ms') })));
  }
  if (filters.notHealthCheck === true) {
    lines.push(h('li', { 'data-filter': 'notHealthCheck', text: 'Health checks skipped' }));
  }
  if (Array.isArray(filters.responseFlags)) {
    lines.push(h('li', { 'data-filter': 'responseFlags' }, filters.responseFlags.length === 0
      ? 'Any response flag'
      : ['Response flag one of ', h('code', { text: filters.responseFlags.join(', ') })]));
  }
  const destination = section.destination;
  return [
    typeof section.format === 'string'
      ? { key: 'format', label: 'Format', value: h('pre', { class: 'format', text: section.format }) }
      : section.json
        ? {
          key: 'json', label: 'JSON format', value: h('table', { class: 'json-format' },
            h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Key' }), h('th', { scope: 'col', text: 'Format' }))),
            h('tbody', {}, Object.entries(section.json).map(([key, value]) => h('tr', { 'data-key': key },
              h('th', { scope: 'row' }, h('code', { text: key })), h('td', {}, h('code', { text: value }))))))
        }
        : { key: 'format', label: 'Format', value: 'Envoy\'s default format (default)' },
    { key: 'filters', label: 'Filters', value: lines.length === 0 ? 'none: every request is logged' : h('ul', { class: 'filters' }, lines) },
    {
      key: 'destination', label: 'Destination', value: destination === undefined || destination === null
        ? 'stdout (default)'
        : typeof destination === 'string'
          ? destination
          : [h('code', { text: destination.file }), h('span', { class: 'source', text: ' under the edge\'s --access-log-dir' })],
    },
  ];
}

function accessLogForm({ edgeId, model, state, titleId, onCancel, onSaved, onReload }) {
  const start = model.inputOf(state.policy);
  const entries = new Map(); // place → { wrapper, control, problem }
  const footerStatus = h('div', { class: 'editor-status', role: 'status', 'aria-live': 'polite' });
  const saveButton = h('button', { type: 'submit', class: 'primary', text: 'Save access log', 'aria-describedby': 'al-save-hint' });
  const saveHint = h('p', { class: 'help', id: 'al-save-hint' });

  // ---- the format: a radio group choosing which of the three blocks below is in force ----
  const kinds = [
    ['default', 'Envoy\'s default format'],
    ['format', 'A format string'],
    ['json', 'JSON: keys and their format strings'],
  ];
  const kindInputs = kinds.map(([value]) => h('input', {
    type: 'radio', name: 'al-kind', id: `al-kind-${value}`, value, checked: start.kind === value,
  }));
  const kindChoice = () => kindInputs.find((input) => input.checked).value;

  const formatField = model.field('format');
  const formatInput = h('textarea', { id: 'al-format', name: 'format', rows: 3, spellcheck: 'false', 'aria-describedby': 'al-format-hint al-format-problem' });
  formatInput.value = start.format;
  formatInput.addEventListener('input', check);
  const formatEntry = fieldBlock({
    id: 'al-format', path: formatField.path, label: formatField.label, key: formatField.key, control: formatInput,
    below: [h('p', { class: 'help', id: 'al-format-hint', text: formatField.hint }),
      h('details', { class: 'operators' }, h('summary', { text: 'The command operators the edge fills' }),
        h('p', { class: 'help' }, h('code', { text: model.schema.operators.join(' ') })))],
  });
  entries.set('format', formatEntry);
  const formatBlock = h('div', { class: 'format-block' }, formatEntry.wrapper);

  const jsonField = model.field('json');
  const jsonRows = []; // { row, key: entry, value: entry }
  let jsonMade = 0;
  const jsonList = h('div', { class: 'json-rows' });
  const jsonProblem = h('p', { class: 'problem', id: 'al-json-problem', hidden: true });
  const addKey = h('button', { type: 'button', class: 'add-key', text: 'Add a key', 'aria-describedby': 'al-json-problem' });
  const addJsonRow = (key, value) => {
    const n = jsonMade;
    jsonMade += 1;
    const keyInput = h('input', { id: `al-json-${n}-key`, name: 'json-key', type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `al-json-${n}-key-problem` });
    keyInput.value = key;
    const valueInput = h('input', { id: `al-json-${n}-value`, name: 'json-value', type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `al-json-${n}-value-problem` });
    valueInput.value = value;
    const keyEntry = fieldBlock({ id: `al-json-${n}-key`, path: `json.${n}.key`, label: 'Key', key: 'json', control: keyInput });
    const valueEntry = fieldBlock({ id: `al-json-${n}-value`, path: `json.${n}.value`, label: 'Format string', key: 'json.<key>', control: valueInput });
    const removeButton = h('button', { type: 'button', class: 'quiet', text: 'Remove' });
    const row = {
      n, element: h('div', { class: 'json-row', 'data-row': n }, keyEntry.wrapper, valueEntry.wrapper, removeButton),
      key: keyEntry, value: valueEntry, removeButton,
      keyLabel: keyEntry.wrapper.querySelector('label'), valueLabel: valueEntry.wrapper.querySelector('label'),
    };
    removeButton.addEventListener('click', () => {
      jsonRows.splice(jsonRows.indexOf(row), 1);
      row.element.remove();
      check();
      addKey.focus();
    });
    keyInput.addEventListener('input', check);
    valueInput.addEventListener('input', check);
    jsonRows.push(row);
    jsonList.appendChild(row.element);
    return row;
  };
  start.json.forEach(({ key, value }) => addJsonRow(key, value));
  addKey.addEventListener('click', () => {
    const row = addJsonRow('', '');
    check();
    row.key.control.focus();
  });
  const jsonBlock = h('div', { class: 'json-block' },
    h('p', { class: 'help', text: jsonField.hint }),
    jsonList, jsonProblem, addKey);

  const formatSection = h('fieldset', { class: 'section' },
    h('legend', { text: 'Format' }),
    h('div', { class: 'choices' },
      kinds.map(([value, label], i) => h('div', { class: 'choice' }, kindInputs[i], h('label', { for: `al-kind-${value}`, text: label })))),
    formatBlock, jsonBlock);

  // ---- filters ----
  const comparison = (prefix, member, startValue) => {
    const opField = model.field(`${prefix}.op`);
    const valueField = model.field(`${prefix}.${member}`);
    const base = `al-${prefix.split('.')[1]}`;
    const op = h('select', { id: `${base}-op`, name: opField.key, 'aria-describedby': `${base}-op-hint` },
      h('option', { value: '', text: `Default (${opField.default})` }),
      opField.allowedValues.map((v) => h('option', { value: v, text: v })));
    op.value = startValue.op;
    op.addEventListener('change', check);
    const value = h('input', { id: `${base}-${member}`, name: valueField.key, type: 'text', inputmode: 'numeric', autocomplete: 'off', 'aria-describedby': `${base}-${member}-hint ${base}-${member}-problem` });
    value.value = startValue[member];
    value.addEventListener('input', check);
    const opEntry = fieldBlock({ id: `${base}-op`, path: opField.path, label: opField.label, key: opField.key, control: op,
      below: h('p', { class: 'help', id: `${base}-op-hint`, text: opField.hint }) });
    const valueEntry = fieldBlock({ id: `${base}-${member}`, path: valueField.path, label: valueField.label, key: valueField.key, control: value,
      below: h('p', { class: 'help', id: `${base}-${member}-hint`, text: `${valueField.hint} ${valueField.min}–${valueField.max}; empty: no such filter.` }) });
    entries.set(`${prefix}.${member}`, valueEntry);
    return { element: h('div', { class: 'comparison' }, opEntry.wrapper, valueEntry.wrapper), op, value };
  };
  const statusCode = comparison('filters.statusCode', 'value', start.statusCode);
  const duration = comparison('filters.duration', 'millis', start.duration);

  const healthField = model.field('filters.notHealthCheck');
  const health = h('input', { type: 'checkbox', id: 'al-not-health-check', name: healthField.key, checked: start.notHealthCheck, 'aria-describedby': 'al-not-health-check-hint' });
  health.addEventListener('change', check);

  const flagsField = model.field('filters.responseFlags');
  const flagsMode = h('select', { id: 'al-flags-mode', name: 'responseFlagsMode', 'aria-describedby': 'al-flags-hint al-flags-mode-problem' },
    h('option', { value: 'none', text: 'No filter on response flags' }),
    h('option', { value: 'any', text: 'Any response flag' }),
    h('option', { value: 'some', text: 'One of the flags chosen below' }));
  flagsMode.value = start.flagsMode;
  const flagBoxes = flagsField.allowedValues.map((flag) => h('input', {
    type: 'checkbox', id: `al-flag-${flag}`, name: 'responseFlags', value: flag, checked: start.flags.includes(flag),
  }));
  const flagList = h('fieldset', { class: 'flags' }, h('legend', { class: 'sr-only', text: 'Response flags to log' }),
    flagsField.allowedValues.map((flag, i) => h('div', { class: 'flag' }, flagBoxes[i], h('label', { for: `al-flag-${flag}`, text: flag }))));
  flagsMode.addEventListener('change', check);
  flagBoxes.forEach((box) => box.addEventListener('change', check));
  const flagsEntry = fieldBlock({
    id: 'al-flags-mode', path: flagsField.path, label: flagsField.label, key: flagsField.key, control: flagsMode,
    below: [h('p', { class: 'help', id: 'al-flags-hint', text: flagsField.hint }), flagList],
  });
  // The problem element sits under the select; move it under the flags, where they are chosen.
  flagsEntry.wrapper.appendChild(flagsEntry.problem);
  entries.set('filters.responseFlags', flagsEntry);

  const filtersSection = h('fieldset', { class: 'section' },
    h('legend', { text: 'Filters' }),
    h('p', { class: 'hint', text: 'Which requests are logged: every filter set must pass. Nothing set: every request.' }),
    statusCode.element,
    duration.element,
    h('div', { class: 'field check', 'data-field': healthField.path }, health,
      h('label', { for: 'al-not-health-check' }, healthField.label, ' ', h('code', { class: 'path', text: healthField.key })),
      h('p', { class: 'help', id: 'al-not-health-check-hint', text: healthField.hint })),
    flagsEntry.wrapper);

  // ---- destination ----
  const destinationField = model.field('destination');
  const destination = h('select', { id: 'al-destination', name: destinationField.key, 'aria-describedby': 'al-destination-hint' },
    DESTINATIONS.map(([value, label]) => h('option', { value, text: label })));
  destination.value = start.destination;
  destination.addEventListener('change', check);
  const file = h('input', { id: 'al-file', name: 'file', type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'al-file-hint al-file-problem' });
  file.value = start.file;
  file.addEventListener('input', check);
  const fileEntry = fieldBlock({
    id: 'al-file', path: `${destinationField.path}.file`, label: 'File', key: 'destination.file', control: file,
    below: h('p', { class: 'help', id: 'al-file-hint', text: `Relative to the edge's --access-log-dir: segments of letters, digits, '.', '_' and '-' joined by '/', at most ${model.schema.maxPathLength} characters.` }),
  });
  entries.set('destination.file', fileEntry);
  const destinationSection = h('fieldset', { class: 'section' },
    h('legend', { text: 'Destination' }),
    fieldBlock({ id: 'al-destination', path: destinationField.path, label: destinationField.label, key: destinationField.key, control: destination,
      below: h('p', { class: 'help', id: 'al-destination-hint', text: destinationField.hint }) }).wrapper,
    fileEntry.wrapper);

  const input = () => ({
    kind: kindChoice(),
    format: formatInput.value,
    json: jsonRows.map((row) => ({ key: row.key.control.value, value: row.value.control.value })),
    statusCode: { op: statusCode.op.value, value: statusCode.value.value },
    duration: { op: duration.op.value, millis: duration.value.value },
    notHealthCheck: health.checked,
    flagsMode: flagsMode.value,
    flags: flagBoxes.filter((box) => box.checked).map((box) => box.value),
    destination: destination.value,
    file: file.value,
  });

  function check() {
    const kind = kindChoice();
    formatBlock.hidden = kind !== 'format';
    jsonBlock.hidden = kind !== 'json';
    flagList.hidden = flagsMode.value !== 'some';
    fileEntry.wrapper.hidden = destination.value !== 'file';
    addKey.disabled = jsonRows.length >= jsonField.max;
    const checked = model.check(input());
    const { problems } = checked;
    for (const [place, entry] of entries) {
      showProblems(entry, problems.get(place));
    }
    for (const row of jsonRows) {
      const index = jsonRows.indexOf(row);
      showProblems(row.key, problems.get(`json.${index}.key`));
      showProblems(row.value, problems.get(`json.${index}.value`));
      replace(row.keyLabel, `Key ${index + 1} `, h('code', { class: 'path', text: jsonField.key }));
      replace(row.valueLabel, `Format string of key ${index + 1} `, h('code', { class: 'path', text: `${jsonField.key}.<key>` }));
      row.removeButton.setAttribute('aria-label', `Remove key ${index + 1}`);
    }
    const jsonMessages = problems.get('json') || [];
    replace(jsonProblem, jsonMessages.map((message) => h('span', { text: message })));
    jsonProblem.hidden = jsonMessages.length === 0;
    const count = [...problems.values()].reduce((n, list) => n + list.length, 0);
    saveButton.disabled = count > 0;
    replace(saveHint, count === 0 ? '' : count === 1
      ? 'Save is disabled: fix the problem shown above first.'
      : `Save is disabled: fix the ${count} problems shown above first.`);
    return checked;
  }
  kindInputs.forEach((radio) => radio.addEventListener('change', check));

  const save = async (event) => {
    event.preventDefault();
    const { section, problems } = check();
    if (problems.size > 0) {
      return; // Save is disabled then; Enter in a field must not send either.
    }
    await saveSection({
      edgeId, section: SECTION, what: WHAT, revision: state.revision, value: section,
      saveButton, footerStatus, onSaved, onReload,
    });
  };

  const remove = deleteFromEditor({
    remove: () => removeAccessLog({ edgeId, revision: state.revision }),
    what: WHAT, footerStatus, onSaved, onReload,
  });

  const form = drawerForm({
    titleId, title: 'Edit access log', edgeId, state, onsubmit: save, footerStatus: h('div', {}, footerStatus, saveHint), saveButton, onCancel,
    body: [
      h('p', { class: 'lead', text: 'One more access log on every HTTP connection manager of the edge, beside its bootstrap\'s '
        + '(which always stay). Every field is optional: nothing set is Envoy\'s default format on stdout for every request.' }),
      formatSection, filtersSection, destinationSection],
    deleteButton: state.policy ? h('button', { type: 'button', class: 'quiet', text: 'Remove the access log', onclick: remove }) : null,
  });
  check();
  return form;
}
