// The "Edit request limits" side panel: the edge's list of limits (the rateLimits section), each
// with every field of the shared description labelled, add and remove a limit, validation as you
// type with central's messages for the limit's index, Save (the whole list, with
// expectedRevisions), Remove all request limits (after confirmation) and Cancel (discards).

import { h, replace } from './dom.js';
import { deleteFromEditor, deleteSection, drawerForm, fieldBlock, openDrawer, refuseWithProblems, saveSection, showProblems } from './editor.js';
import { MODE_NAMES } from './policy.js';

const SECTION = 'rateLimits';
const WHAT = 'request limits';

/** Opens the editor; resolves as openEditor (editor.js) does. */
export function openRateLimitsEditor({ edgeId, model, policy, revision, reloadPolicies }) {
  return openDrawer({
    section: SECTION, policy, revision, reloadPolicies,
    form: (context) => rateLimitsForm({ edgeId, model, ...context }),
  });
}

/** Asks for confirmation, then sends "rateLimits": null; resolves as deleteSection does. */
export function removeRateLimits({ edgeId, revision }) {
  return deleteSection({
    edgeId, section: SECTION, revision,
    title: 'Remove all request limits',
    message: `Delete every request limit set on ${edgeId}? Its callers are no longer limited by this policy `
      + '(rate limit filters in the edge\'s own listeners stay as they are).',
    confirmLabel: 'Remove all request limits',
    refused: 'Not removed',
    done: (at) => `Removed: no request limit is set on this edge (revision ${at}).`,
  });
}

/** A limit's value of a field as the card shows it; absent: its default. */
export function limitValueText(field, value) {
  if (value === undefined || value === null) {
    if (field.default === null) {
      return 'not set';
    }
    return `${limitValueText(field, field.default)} (default)`;
  }
  if (field.type === 'enum') {
    return MODE_NAMES[value] || String(value);
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? 'none' : value.join(', ');
  }
  return String(value);
}

function rateLimitsForm({ edgeId, model, state, titleId, onCancel, onSaved, onReload }) {
  const rows = []; // { fieldset, legend, removeButton, inputs: Map key → { field, wrapper, control, problem } }
  let made = 0;
  const list = h('div', { class: 'limits' });
  const none = h('p', { class: 'muted', text: 'No limit in the list. Add one, or close the panel.' });
  const footerStatus = h('div', { class: 'editor-status', role: 'status', 'aria-live': 'polite' });
  const saveButton = h('button', { type: 'submit', class: 'primary', text: 'Save request limits' });
  const addButton = h('button', { type: 'button', class: 'add-limit', text: 'Add a limit' });

  const check = () => {
    const { limits, problems } = model.check(rows.map((row) => new Map([...row.inputs].map(([key, entry]) => [key, entry.control.value]))));
    rows.forEach((row, index) => {
      replace(row.legend, `Limit ${index + 1}`);
      row.removeButton.setAttribute('aria-label', `Remove limit ${index + 1}`);
      for (const [key, entry] of row.inputs) {
        showProblems(entry, problems[index].get(key));
      }
    });
    none.hidden = rows.length > 0;
    addButton.disabled = rows.length >= model.maxLimits;
    return { limits, problems };
  };

  const control = (field, id, value, describedBy) => {
    const text = model.inputText(field, value);
    if (field.type === 'enum') {
      const select = h('select', { id, name: field.key, 'aria-describedby': describedBy },
        h('option', { value: '', text: `Default (${field.default})` }),
        field.allowedValues.map((v) => h('option', { value: v, text: MODE_NAMES[v] || v })));
      select.value = text;
      select.addEventListener('change', check);
      return select;
    }
    const input = field.type === 'stringList'
      ? h('textarea', { id, name: field.key, rows: 2, spellcheck: 'false', 'aria-describedby': describedBy })
      : h('input', {
        id, name: field.key, type: 'text', autocomplete: 'off', spellcheck: 'false',
        inputmode: field.type === 'integer' ? 'numeric' : field.type === 'number' ? 'decimal' : null,
        'aria-describedby': describedBy,
      });
    input.value = text;
    input.addEventListener('input', check);
    return input;
  };

  const addRow = (limit) => {
    const n = made;
    made += 1;
    const legend = h('legend');
    const removeButton = h('button', { type: 'button', class: 'quiet remove-limit', text: 'Remove this limit' });
    const inputs = new Map();
    const fields = model.fields.map((field) => {
      const id = `rl-${n}-${field.key}`;
      const hintId = `${id}-hint`;
      const entry = fieldBlock({
        id, path: field.key, label: field.required ? `${field.label} (required)` : field.label, key: field.key,
        control: control(field, id, limit[field.key], `${hintId} ${id}-problem`),
        below: h('p', { class: 'help', id: hintId, text: field.type === 'stringList' ? `${field.hint} One a line.` : field.hint }),
      });
      inputs.set(field.key, { field, ...entry });
      return entry.wrapper;
    });
    const fieldset = h('fieldset', { class: 'section limit', 'data-limit': n }, legend, h('div', { class: 'limit-fields' }, fields),
      h('div', { class: 'actions' }, removeButton));
    const row = { fieldset, legend, removeButton, inputs };
    removeButton.addEventListener('click', () => {
      rows.splice(rows.indexOf(row), 1);
      fieldset.remove();
      check();
      addButton.focus();
    });
    rows.push(row);
    list.appendChild(fieldset);
    return row;
  };

  addButton.addEventListener('click', () => {
    const row = addRow({});
    check();
    row.inputs.values().next().value.control.focus();
  });

  const save = async (event) => {
    event.preventDefault();
    const { limits, problems } = check();
    const index = problems.findIndex((found) => found.size > 0);
    if (index >= 0) {
      const firstKey = [...rows[index].inputs.keys()].find((key) => problems[index].has(key));
      refuseWithProblems(footerStatus, problems.flatMap((found) => [...found.values()]), rows[index].inputs.get(firstKey));
      return;
    }
    if (limits.length === 0) {
      replace(footerStatus, h('p', { class: 'error', text: 'No limit is in the list. To remove every request limit, use Remove all request limits.' }));
      return;
    }
    await saveSection({
      edgeId, section: SECTION, what: WHAT, revision: state.revision, value: { limits },
      saveButton, footerStatus, onSaved, onReload,
    });
  };

  const removeAll = deleteFromEditor({
    remove: () => removeRateLimits({ edgeId, revision: state.revision }),
    what: WHAT, footerStatus, onSaved, onReload,
  });

  model.limitsOf(state.policy).forEach((limit) => addRow(limit));
  const form = drawerForm({
    titleId, title: 'Edit request limits', edgeId, state, onsubmit: save, footerStatus, saveButton, onCancel,
    body: [
      h('p', { class: 'lead', text: `A caller over a limit's rate is counted (shadow) or answered 429 (enforce). `
        + `Limits are checked in this order; at most ${model.maxLimits}, names unique.` }),
      list, none, addButton],
    deleteButton: state.policy ? h('button', { type: 'button', class: 'quiet', text: 'Remove all request limits', onclick: removeAll }) : null,
  });
  check();
  return form;
}
