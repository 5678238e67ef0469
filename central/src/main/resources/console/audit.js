// The audit log (#/audit?edgeId=...&section=...&operator=...&since=...&limit=...): every accepted
// change, newest first, with who made it, when, and the section before and after. Read-only.

import { request } from './api.js';
import { h, replace, time } from './dom.js';

const FILTERS = ['edgeId', 'section', 'operator', 'since', 'limit'];

/** Renders the audit log for the filters in the URL (URLSearchParams). */
export async function showAudit(main, params) {
  const heading = h('h1', { tabindex: '-1', text: 'Audit log' });
  const status = h('p', { class: 'status', role: 'status' });
  const body = h('div', { class: 'audit-body' }, h('p', { class: 'loading', text: 'Loading the audit log…' }));
  const inputs = {
    edgeId: h('input', { id: 'audit-edge', name: 'edgeId', value: params.get('edgeId') || '', autocomplete: 'off', spellcheck: 'false' }),
    section: h('input', {
      id: 'audit-section', name: 'section', value: params.get('section') || '', autocomplete: 'off', spellcheck: 'false',
      list: 'audit-sections', 'aria-describedby': 'audit-section-help',
    }),
    operator: h('input', { id: 'audit-operator', name: 'operator', value: params.get('operator') || '', autocomplete: 'off', spellcheck: 'false' }),
    since: h('input', {
      id: 'audit-since', name: 'since', value: params.get('since') || '', autocomplete: 'off', spellcheck: 'false',
      placeholder: '2030-01-01T00:00:00Z', 'aria-describedby': 'audit-since-help',
    }),
    limit: h('input', { id: 'audit-limit', name: 'limit', value: params.get('limit') || '', inputmode: 'numeric', autocomplete: 'off', placeholder: '100' }),
  };
  const form = h('form', {
    class: 'filter audit-filter', role: 'search',
    onsubmit: (event) => {
      event.preventDefault();
      const query = new URLSearchParams();
      for (const name of FILTERS) {
        const value = inputs[name].value.trim();
        if (value) {
          query.set(name, value);
        }
      }
      const text = query.toString();
      location.hash = text ? `#/audit?${text}` : '#/audit';
    },
  },
  h('div', { class: 'filter-grid' },
    labelled('audit-edge', 'Edge', inputs.edgeId),
    labelled('audit-section', 'Section', inputs.section,
      h('p', { id: 'audit-section-help', class: 'help', text: 'overload, accessLog, rateLimits or resources/<type>/<name>' })),
    labelled('audit-operator', 'Operator', inputs.operator),
    labelled('audit-since', 'Since', inputs.since, h('p', { id: 'audit-since-help', class: 'help', text: 'An ISO-8601 instant (UTC)' })),
    labelled('audit-limit', 'At most', inputs.limit)),
  h('datalist', { id: 'audit-sections' }, ['overload', 'accessLog', 'rateLimits'].map((s) => h('option', { value: s }))),
  h('div', { class: 'actions' },
    FILTERS.some((name) => params.get(name)) ? h('a', { class: 'button quiet', href: '#/audit', text: 'Clear' }) : null,
    h('button', { type: 'submit', text: 'Filter' })));

  replace(main, h('section', { class: 'page' }, h('div', { class: 'page-head' }, heading), form, status, body));
  heading.focus();

  const query = new URLSearchParams();
  for (const name of FILTERS) {
    if (params.get(name)) {
      query.set(name, params.get(name));
    }
  }
  try {
    const answer = await request('GET', `/configuration/audit${query.toString() ? `?${query}` : ''}`);
    replace(body, auditTable(answer.entries));
  } catch (error) {
    replace(body);
    replace(status, h('span', { class: 'error', text: `Could not read the audit log: ${error.message}` }));
  }
}

function labelled(id, text, input, help) {
  return h('div', { class: 'field' }, h('label', { for: id, text }), input, help || null);
}

function auditTable(entries) {
  if (entries.length === 0) {
    return h('p', { class: 'empty', text: 'No change matches.' });
  }
  return h('table', { class: 'edges audit' },
    h('caption', { class: 'sr-only', text: 'Changes, newest first' }),
    h('thead', {}, h('tr', {}, ['When', 'Operator', 'Edge or selector', 'Section', 'Revision', 'Change'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, entries.map((entry) => h('tr', { 'data-audit': entry.id },
      h('td', { 'data-label': 'When' }, time(entry.at)),
      h('td', { 'data-label': 'Operator', text: entry.operator }),
      h('td', { 'data-label': 'Edge or selector' }, entry.edgeId
        ? h('a', { href: `#/edges/${encodeURIComponent(entry.edgeId)}`, text: entry.edgeId })
        : h('code', { text: `selector ${entry.selector || ''}` })),
      h('td', { 'data-label': 'Section' }, h('code', { text: entry.section })),
      h('td', { 'data-label': 'Revision', text: String(entry.revision) }),
      h('td', { 'data-label': 'Change' }, change(entry))))));
}

function change(entry) {
  const what = entry.after === null ? 'deleted' : entry.before === null ? 'set' : 'changed';
  return h('details', { class: 'change' },
    h('summary', { text: what }),
    h('div', { class: 'before-after' },
      h('div', {}, h('h3', { text: 'Before' }), json(entry.before)),
      h('div', {}, h('h3', { text: 'After' }), json(entry.after))));
}

/** A JSON value, indented, or "nothing" for null. */
export function json(value) {
  return value === null || value === undefined
    ? h('p', { class: 'muted', text: 'nothing' })
    : h('pre', { class: 'json', text: JSON.stringify(value, null, 2) });
}
