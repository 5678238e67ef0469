// One edge's panel (#/edges/<id>): its status, the Overload protection, Request limits and Access log cards,
// the live charts of what it reports, the deployment defaults it reported, and, for operators with edges:manage, relabel, new credential, deregister.

import { accessLogFacts, openAccessLogEditor, removeAccessLog } from './accesslog.js';
import { ApiError, canManage, edgePath, policiesPath, request } from './api.js';
import { json } from './audit.js';
import { chartsCard } from './charts.js';
import { confirmAction, h, labelChips, modal, replace, time, typeName, version } from './dom.js';
import { ackedVersions, connection, credentialShown, labelsText, lastNack, parseLabels } from './edges.js';
import { openEditor, resetToDeploymentDefaults } from './editor.js';
import { AccessLogModel, MODE_NAMES, PolicyModel, RateLimitsModel, SCHEMAS, formatValue, loadSchema } from './policy.js';
import { limitValueText, openRateLimitsEditor, removeRateLimits } from './ratelimits.js';

/** Renders the panel of edge id into main. */
export async function showEdge(main, id) {
  const heading = h('h1', { tabindex: '-1', text: id });
  const content = h('div', { class: 'cards' }, h('p', { class: 'loading', text: 'Loading the edge…' }));
  replace(main, h('section', { class: 'page' },
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/edges', text: 'Edges' }), ' / ', h('span', { text: id })),
    h('div', { class: 'page-head' }, heading,
      h('a', { class: 'button quiet', href: `#/audit?edgeId=${encodeURIComponent(id)}`, text: 'Audit log of this edge' })),
    content));
  heading.focus();

  const panel = { id, edge: null, policies: null, model: null, content };
  await reload(panel);
}

async function reload(panel) {
  try {
    const [edge, policies, schema, limitsSchema, accessLogSchema, resources] = await Promise.all([
      request('GET', edgePath(panel.id)), request('GET', policiesPath(panel.id)), loadSchema(SCHEMAS.overload),
      loadSchema(SCHEMAS.rateLimits), loadSchema(SCHEMAS.accessLog),
      request('GET', `/configuration/resources?edgeId=${encodeURIComponent(panel.id)}`)]);
    panel.edge = edge;
    panel.policies = policies;
    panel.resources = resources;
    panel.model = new PolicyModel(schema, edge.status ? edge.status.reportedDefaults : null);
    panel.limitsModel = new RateLimitsModel(limitsSchema);
    panel.accessLogModel = new AccessLogModel(accessLogSchema);
    render(panel);
  } catch (error) {
    replace(panel.content, h('p', { class: 'error', role: 'alert', text: error instanceof ApiError && error.status === 404
      ? `No edge ${panel.id} is registered.` : `Could not load edge ${panel.id}: ${error.message}` }));
  }
}

/**
 * Draws the cards. messages: { overload, rateLimits, accessLog, manage } to show in those cards, each
 * { kind, text } and optionally { reload: true } for a Reload button.
 */
function render(panel, messages = {}) {
  panel.live = panel.live || chartsCard(panel.id);
  replace(panel.content,
    overloadCard(panel, messages.overload),
    rateLimitsCard(panel, messages.rateLimits),
    accessLogCard(panel, messages.accessLog),
    panel.live,
    statusCard(panel.edge),
    defaultsCard(panel),
    canManage() ? manageCard(panel, messages.manage) : null,
    resourcesCard(panel.resources));
}

function messageView(message, panel) {
  if (!message) {
    return null;
  }
  return h('div', { class: message.reload ? 'conflict' : '' },
    h('p', { class: message.kind, text: message.text }),
    message.reload ? h('button', { type: 'button', text: 'Reload', onclick: () => reload(panel) }) : null);
}

function card(title, className, ...children) {
  const titleId = `card-${className}`;
  return h('section', { class: `card ${className}`, 'aria-labelledby': titleId },
    h('h2', { id: titleId, text: title }), ...children);
}

// ---- Overload protection ----

function overloadCard(panel, message) {
  const { model, policies } = panel;
  const policy = policies.overload;
  const revision = policies.revisions.overload;
  const set = model.setFields(policy);
  const differing = set.filter((entry) => entry.differs);
  const same = set.filter((entry) => !entry.differs);
  const status = h('div', { class: 'card-status', role: 'status' }, messageView(message, panel));
  return card('Overload protection', 'overload',
    h('p', { class: 'card-lead', text: policy
      ? `Set on this edge (revision ${revision}); everything else comes from its deployment.`
      : 'Nothing is set on this edge: it runs on its deployment defaults.' }),
    h('dl', { class: 'modes' },
      modeLine(model, policy, 'inbound'),
      modeLine(model, policy, 'outbound')),
    differing.length > 0
      ? h('div', {},
        h('h3', { text: 'Differs from the deployment' }),
        h('table', { class: 'differs' },
          h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Field' }), h('th', { scope: 'col', text: 'Here' }), h('th', { scope: 'col', text: 'Deployment' }))),
          h('tbody', {}, differing.map((entry) => h('tr', { 'data-field': entry.field.path },
            h('th', { scope: 'row' }, entry.field.label, ' ', h('code', { class: 'path', text: entry.field.path })),
            h('td', { class: 'here', text: formatValue(entry.value) }),
            h('td', {}, formatValue(entry.fallback.value), entry.fallback.fromEnvironment
              ? h('span', { class: 'source', text: ` (${entry.field.env})` }) : null))))))
      : h('p', { class: 'muted', text: policy ? 'No field differs from the deployment.' : '' }),
    same.length > 0
      ? h('p', { class: 'muted same' }, 'Also set here, the same as the deployment: ',
        same.map((entry, i) => [i > 0 ? ', ' : '', h('code', { text: entry.field.path })]), '.')
      : null,
    status,
    sectionActions(panel, {
      section: 'overload', cardClass: 'overload', editLabel: 'Edit overload protection', removeText: 'Reset to deployment defaults',
      open: () => openEditor({ edgeId: panel.id, model, policy, revision, reloadPolicies: () => request('GET', policiesPath(panel.id)) }),
      remove: () => resetToDeploymentDefaults({ edgeId: panel.id, revision }),
    }));
}

/**
 * The buttons of a section's card for an operator with edges:manage (the other operators see
 * that changing it needs that permission): the delete button (removeText) when the section is
 * set, and Edit, which opens the section's editor (open()). Either outcome is shown in the card
 * (messages[section]); after a cancelled editor the panel shows what central has now.
 */
function sectionActions(panel, { section, cardClass, editLabel, removeText, open, remove }) {
  if (!canManage()) {
    return h('p', { class: 'muted', text: 'Changing it needs the edges:manage permission.' });
  }
  const focusEdit = () => {
    const button = panel.content.querySelector(`.${cardClass} .actions .primary`);
    if (button) {
      button.focus();
    }
  };
  const edit = async () => {
    const outcome = await open();
    if (outcome && outcome.policies) {
      panel.policies = outcome.policies;
      render(panel, { [section]: outcome.message });
    } else {
      await reload(panel); // cancelled: show what central has now, which may have changed meanwhile
    }
    focusEdit();
  };
  const removeIt = async () => {
    const outcome = await remove();
    if (outcome && outcome.policies) {
      panel.policies = outcome.policies;
      render(panel, { [section]: outcome.message });
    } else if (outcome && outcome.error) {
      render(panel, { [section]: { ...outcome.error, reload: Boolean(outcome.conflict) } });
    }
    focusEdit();
  };
  return h('div', { class: 'actions' },
    panel.policies[section] ? h('button', { type: 'button', class: 'quiet', text: removeText, onclick: removeIt }) : null,
    h('button', { type: 'button', class: 'primary', text: 'Edit', 'aria-label': editLabel, onclick: edit }));
}

// ---- Request limits ----

function rateLimitsCard(panel, message) {
  const model = panel.limitsModel;
  const policy = panel.policies.rateLimits;
  const revision = panel.policies.revisions.rateLimits;
  const limits = model.limitsOf(policy);
  const shown = model.fields.filter((field) => field.key !== model.schema.uniqueField);
  return card('Request limits', 'ratelimits',
    h('p', { class: 'card-lead', text: policy
      ? `Set on this edge (revision ${revision}): ${limits.length === 1 ? 'one limit' : `${limits.length} limits`}, checked in this order.`
      : 'Nothing is set on this edge: no caller is limited by its policy.' }),
    h('div', { class: 'limit-list' }, limits.map((limit) => h('div', { class: 'limit', 'data-limit': limit.name },
      h('h3', {}, h('code', { text: limit.name }), ' ',
        h('span', { class: `mode ${limit.mode || model.byKey.get('mode').default}`, text: limitValueText(model.byKey.get('mode'), limit.mode) })),
      h('dl', { class: 'facts' }, shown.map((field) => [
        h('dt', { title: field.hint, text: field.label }),
        h('dd', { 'data-field': field.key, text: limitValueText(field, limit[field.key]) })]))))),
    h('div', { class: 'card-status', role: 'status' }, messageView(message, panel)),
    sectionActions(panel, {
      section: 'rateLimits', cardClass: 'ratelimits', editLabel: 'Edit request limits', removeText: 'Remove all request limits',
      open: () => openRateLimitsEditor({ edgeId: panel.id, model, policy, revision, reloadPolicies: () => request('GET', policiesPath(panel.id)) }),
      remove: () => removeRateLimits({ edgeId: panel.id, revision }),
    }));
}

// ---- Access log ----

function accessLogCard(panel, message) {
  const model = panel.accessLogModel;
  const section = panel.policies.accessLog;
  const revision = panel.policies.revisions.accessLog;
  return card('Access log', 'accesslog',
    h('p', { class: 'card-lead', text: section
      ? `Set on this edge (revision ${revision}): one more access log, beside the ones of its bootstrap.`
      : 'Nothing is set on this edge: it writes only the access logs of its bootstrap.' }),
    section ? h('dl', { class: 'facts' }, accessLogFacts(model, section).map((fact) => [
      h('dt', { text: fact.label }),
      h('dd', { 'data-field': fact.key }, fact.value)])) : null,
    h('div', { class: 'card-status', role: 'status' }, messageView(message, panel)),
    sectionActions(panel, {
      section: 'accessLog', cardClass: 'accesslog', editLabel: 'Edit access log', removeText: 'Remove the access log',
      open: () => openAccessLogEditor({ edgeId: panel.id, model, policy: section, revision, reloadPolicies: () => request('GET', policiesPath(panel.id)) }),
      remove: () => removeAccessLog({ edgeId: panel.id, revision }),
    }));
}

function modeLine(model, policy, section) {
  const field = model.byPath.get(`${section}.mode`);
  const value = model.valuesOf(policy).get(field.path);
  const fallback = model.fallback(field);
  const group = model.group(section);
  return [
    h('dt', { text: group.label }),
    h('dd', { 'data-section': section },
      h('span', { class: `mode ${value || fallback.value}`, text: MODE_NAMES[value || fallback.value] }),
      h('span', { class: 'source', text: value ? ' set here' : fallback.fromEnvironment ? ` deployment (${field.env})` : ' deployment default' })),
  ];
}

// ---- Status ----

function statusCard(edge) {
  const status = edge.status || {};
  const refused = Object.keys(status.refusedVersions || {});
  return card('Status', 'status-card',
    h('dl', { class: 'facts' },
      h('dt', { text: 'Connection' }), h('dd', {}, connection(status.connected)),
      h('dt', { text: 'Last seen' }), h('dd', {}, time(status.lastSeen)),
      h('dt', { text: 'Labels' }), h('dd', {}, labelChips(edge.labels)),
      h('dt', { text: 'ACKed versions' }), h('dd', {}, ackedVersions(status.ackedVersions)),
      h('dt', { text: 'Last NACK' }), h('dd', {}, lastNack(status.lastNack)),
      refused.length > 0 ? [
        h('dt', { text: 'Refused, not sent again' }),
        h('dd', {}, h('dl', { class: 'versions' }, refused.sort().map((type) => [
          h('dt', { title: type, text: typeName(type) }), h('dd', {}, version(status.refusedVersions[type]))]))),
      ] : null,
      status.lastAuthFailure ? [
        h('dt', { text: 'Last refused credential' }),
        h('dd', { class: 'error' }, `${status.lastAuthFailure.reason} at `, time(status.lastAuthFailure.at)),
      ] : null,
      h('dt', { text: 'Registered' }), h('dd', {}, time(edge.createdAt)),
      h('dt', { text: 'Changed' }), h('dd', {}, time(edge.updatedAt))));
}

function defaultsCard(panel) {
  const reported = panel.edge.status ? panel.edge.status.reportedDefaults : null;
  const names = Object.keys(reported || {}).sort();
  return card('Deployment defaults', 'defaults',
    reported === null
      ? h('p', { class: 'muted', text: 'The edge has not reported its deployment defaults yet (it does when it connects); the built-in defaults are shown.' })
      : names.length === 0
        ? h('p', { text: 'The edge sets none of the HTTP_ADMISSION_* / HTTP_CLIENT_GUARD_* variables: the built-in defaults apply.' })
        : h('table', { class: 'reported' },
          h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Variable' }), h('th', { scope: 'col', text: 'Value' }))),
          h('tbody', {}, names.map((name) => h('tr', {}, h('th', { scope: 'row' }, h('code', { text: name })), h('td', { text: reported[name] }))))));
}

// ---- Resources ----

const RESOURCE_TYPES = ['clusters', 'endpoints', 'listeners', 'routes', 'runtimes'];

/** What the edge receives from central (its own resources and those of selectors it matches), read-only. */
function resourcesCard(resources) {
  const count = RESOURCE_TYPES.reduce((n, type) => n + (resources[type] || []).length, 0);
  return card('Resources', 'resources',
    h('p', { class: 'card-lead', text: count === 0
      ? 'Central sends this edge no clusters, endpoints, listeners, routes or runtime layers.'
      : 'What central sends this edge over xDS: its own resources and those of the selectors its labels match (its own win).' }),
    count === 0 ? null : RESOURCE_TYPES.filter((type) => (resources[type] || []).length > 0).map((type) => h('div', { class: 'resource-type', 'data-type': type },
      h('h3', {}, `${type} `, h('span', { class: 'muted' }, 'version ', version(resources.versions[type]))),
      h('ul', { class: 'resource-list' }, resources[type].map((item) => h('li', { 'data-resource': `${type}/${item.name}` },
        h('details', {},
          h('summary', {}, h('code', { text: item.name }), ' ',
            h('span', { class: 'source', text: item.edgeId ? 'this edge' : `selector ${item.selector === '' ? '(every edge)' : item.selector}` }),
            h('span', { class: 'source' }, ` · revision ${item.revision} · `, time(item.updatedAt), ` by ${item.updatedBy}`)),
          json(item.resource))))))));
}

// ---- Managing the edge ----

function manageCard(panel, message) {
  const status = h('div', { role: 'status' }, messageView(message, panel));
  const labelsInput = h('input', { id: 'relabel', name: 'labels', value: labelsText(panel.edge.labels), autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'relabel-help' });
  const relabel = h('form', {
    class: 'relabel',
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        const labels = parseLabels(labelsInput.value);
        panel.edge = await request('PATCH', edgePath(panel.id), { labels });
        render(panel, { manage: { kind: 'ok', text: 'Labels replaced.' } });
      } catch (error) {
        replace(status, h('p', { class: 'error', text: `Labels not changed: ${error.message}` }));
      }
    },
  },
  h('label', { for: 'relabel', text: 'Labels' }),
  h('div', { class: 'inline' }, labelsInput, h('button', { type: 'submit', text: 'Replace labels' })),
  h('p', { id: 'relabel-help', class: 'help', text: 'key=value, comma-separated; replaces all labels (they decide which resources by selector the edge receives).' }));

  const rotate = async () => {
    const sure = await confirmAction({
      title: 'Replace the credential',
      message: `Edge ${panel.id} gets a new credential; its open stream ends at once and it can reconnect only with the new one.`,
      confirmLabel: 'Replace credential', danger: true,
    });
    if (!sure) {
      return;
    }
    try {
      const answer = await request('POST', `${edgePath(panel.id)}/credential`);
      await modal({ title: 'New credential', content: (close) => credentialShown(panel.id, answer.credential, 'given a new credential', () => close()) });
    } catch (error) {
      replace(status, h('p', { class: 'error', text: `Credential not replaced: ${error.message}` }));
    }
  };

  const deregister = async () => {
    const sure = await confirmAction({
      title: 'Deregister edge',
      message: `Deregister ${panel.id}? Its policies and the resources assigned to it are dropped (the audit history stays), and its stream ends.`,
      confirmLabel: 'Deregister', danger: true,
    });
    if (!sure) {
      return;
    }
    try {
      await request('DELETE', edgePath(panel.id));
      location.hash = '#/edges';
    } catch (error) {
      replace(status, h('p', { class: 'error', text: `Not deregistered: ${error.message}` }));
    }
  };

  return card('Manage', 'manage', relabel, status,
    h('div', { class: 'actions' },
      h('button', { type: 'button', text: 'Replace credential', onclick: rotate }),
      h('button', { type: 'button', class: 'danger', text: 'Deregister', onclick: deregister })));
}
