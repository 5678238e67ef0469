// The Edges list: every registered edge with its labels, connection, last message, the version it
// ACKed of each resource type and its last NACK; a label selector filter; registering an edge.

import { ApiError, canManage, edgesPath, request } from './api.js';
import { copyText, h, labelChips, modal, replace, time, typeName, version } from './dom.js';

/** Renders the list into main for the selector in the URL (#/edges?selector=...). */
export async function showEdges(main, selector) {
  const status = h('p', { class: 'status', role: 'status' });
  const selectorInput = h('input', {
    id: 'selector', name: 'selector', type: 'search', value: selector, autocomplete: 'off',
    spellcheck: 'false', 'aria-describedby': 'selector-help',
  });
  const filter = h('form', {
    class: 'filter', role: 'search',
    onsubmit: (event) => {
      event.preventDefault();
      const text = selectorInput.value.trim();
      location.hash = text ? `#/edges?selector=${encodeURIComponent(text)}` : '#/edges';
    },
  },
  h('label', { for: 'selector', text: 'Label selector' }),
  h('div', { class: 'inline' },
    selectorInput,
    h('button', { type: 'submit', text: 'Filter' }),
    selector ? h('a', { class: 'button quiet', href: '#/edges', text: 'Clear' }) : null),
  h('p', { id: 'selector-help', class: 'help', text: 'key=value, key!=value, key (has it), !key (has not); commas join requirements that must all hold.' }));

  const heading = h('h1', { tabindex: '-1', text: 'Edges' });
  const body = h('div', { class: 'edges-body' }, h('p', { class: 'loading', text: 'Loading edges…' }));
  replace(main, h('section', { class: 'page' },
    h('div', { class: 'page-head' },
      heading,
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'quiet', text: 'Refresh', onclick: () => load() }),
        canManage() ? h('button', { type: 'button', class: 'primary', text: 'Register edge', onclick: () => register() }) : null)),
    filter, status, body));
  heading.focus();

  async function load() {
    try {
      const answer = await request('GET', edgesPath(selector));
      replace(status);
      replace(body, edgeTable(answer.edges, selector));
    } catch (error) {
      replace(body);
      replace(status, h('span', { class: 'error', text: error instanceof ApiError && error.status === 400
        ? `The selector is not valid: ${error.message}` : `Could not load the edges: ${error.message}` }));
    }
  }

  async function register() {
    const created = await registerDialog();
    if (created) {
      await load();
    }
  }

  await load();
}

function edgeTable(edges, selector) {
  if (edges.length === 0) {
    return h('p', { class: 'empty', text: selector ? 'No edge matches this selector.' : 'No edge is registered yet.' });
  }
  return h('table', { class: 'edges' },
    h('caption', { class: 'sr-only', text: 'Registered edges' }),
    h('thead', {}, h('tr', {},
      ['Edge', 'Labels', 'Connection', 'Last seen', 'ACKed versions', 'Last NACK'].map((title) => h('th', { scope: 'col', text: title })))),
    h('tbody', {}, edges.map(edgeRow)));
}

function edgeRow(edge) {
  const status = edge.status || {};
  return h('tr', { 'data-edge': edge.id },
    h('th', { scope: 'row', 'data-label': 'Edge' }, h('a', { href: `#/edges/${encodeURIComponent(edge.id)}`, text: edge.id })),
    h('td', { 'data-label': 'Labels' }, labelChips(edge.labels)),
    h('td', { 'data-label': 'Connection' }, connection(status.connected)),
    h('td', { 'data-label': 'Last seen' }, time(status.lastSeen)),
    h('td', { 'data-label': 'ACKed versions' }, ackedVersions(status.ackedVersions)),
    h('td', { 'data-label': 'Last NACK' }, lastNack(status.lastNack)));
}

/** Connected or not, as a dot and a word. */
export function connection(connected) {
  return connected
    ? h('span', { class: 'state on' }, h('span', { class: 'dot', 'aria-hidden': 'true' }), 'Connected')
    : h('span', { class: 'state off' }, h('span', { class: 'dot', 'aria-hidden': 'true' }), 'Not connected');
}

/** The ACKed version of each resource type. */
export function ackedVersions(acked) {
  const types = Object.keys(acked || {});
  if (types.length === 0) {
    return h('span', { class: 'muted', text: 'none' });
  }
  return h('dl', { class: 'versions' }, types.sort().map((type) => [
    h('dt', { title: type, text: typeName(type) }),
    h('dd', {}, version(acked[type])),
  ]));
}

/** The last NACK: a red mark that opens to the edge's error. */
export function lastNack(nack) {
  if (!nack) {
    return h('span', { class: 'muted', text: 'none' });
  }
  return h('details', { class: 'nack' },
    h('summary', { title: nack.error },
      h('span', { class: 'mark', 'aria-hidden': 'true', text: '!' }),
      `NACK of ${typeName(nack.type)} `, version(nack.version)),
    h('p', { class: 'nack-error', text: nack.error }),
    h('p', { class: 'muted' }, 'at ', time(nack.at)));
}

/** Reads "key=value, key2=value2" into a label map; throws with a message when a part is not key=value. */
export function parseLabels(text) {
  const labels = {};
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') {
      continue;
    }
    const eq = item.indexOf('=');
    if (eq <= 0) {
      throw new Error(`"${item}" is not key=value`);
    }
    labels[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return labels;
}

/** Labels as the text parseLabels reads. */
export function labelsText(labels) {
  return Object.keys(labels || {}).sort().map((key) => `${key}=${labels[key]}`).join(', ');
}

/** The register dialog; resolves true when an edge was registered. */
function registerDialog() {
  let registered = false;
  return modal({
    title: 'Register edge',
    content: (close) => {
      const idInput = h('input', { id: 'register-id', name: 'id', required: true, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'register-id-help' });
      const labelsInput = h('input', { id: 'register-labels', name: 'labels', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'register-labels-help' });
      const error = h('p', { class: 'error', role: 'alert' });
      const body = h('div', {});
      const form = h('form', {
        onsubmit: async (event) => {
          event.preventDefault();
          replace(error);
          let labels;
          try {
            labels = parseLabels(labelsInput.value);
          } catch (problem) {
            replace(error, `Labels: ${problem.message}`);
            labelsInput.focus();
            return;
          }
          try {
            const edge = await request('POST', '/configuration/edges', { id: idInput.value.trim(), labels });
            registered = true;
            replace(body, credentialShown(edge.id, edge.credential, 'registered', () => close(true)));
            body.querySelector('button').focus();
          } catch (problem) {
            replace(error, problem.message);
          }
        },
      },
      h('div', { class: 'field' },
        h('label', { for: 'register-id', text: 'Edge id' }),
        idInput,
        h('p', { id: 'register-id-help', class: 'help', text: 'The node id in the edge\'s bootstrap: 1 to 128 letters, digits or . _ : -' })),
      h('div', { class: 'field' },
        h('label', { for: 'register-labels', text: 'Labels' }),
        labelsInput,
        h('p', { id: 'register-labels-help', class: 'help', text: 'Optional, e.g. env=prod, tier=web' })),
      error,
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'quiet', text: 'Cancel', onclick: () => close(false) }),
        h('button', { type: 'submit', class: 'primary', text: 'Register' })));
      body.appendChild(form);
      return body;
    },
  }).then(() => registered);
}

/**
 * The one-time view of an edge credential: shown once, with a copy button. what: "registered" or
 * "replaced".
 */
export function credentialShown(id, credential, what, done) {
  const field = h('input', { id: 'credential', readonly: true, value: credential, class: 'secret', spellcheck: 'false' });
  const copied = h('span', { class: 'status', role: 'status' });
  return h('div', { class: 'credential' },
    h('p', {}, `Edge ${id} is ${what}. Its credential is shown `, h('strong', { text: 'only now' }),
      ': central keeps only its hash. The edge presents it on its ADS stream, in its bootstrap\'s ',
      h('code', { text: 'initial_metadata' }), ' as ', h('code', { text: 'authorization: Bearer <credential>' }), '.'),
    h('label', { for: 'credential', text: 'Credential' }),
    h('div', { class: 'inline' },
      field,
      h('button', {
        type: 'button', text: 'Copy',
        onclick: async () => {
          replace(copied, await copyText(credential, field) ? 'Copied.' : 'Selected: press Ctrl+C (⌘C) to copy.');
        },
      })),
    copied,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'primary', text: 'Done', onclick: done })));
}
