// The side panels that edit one policy section of an edge, and what they share: the drawer
// (focus inside, Escape and Cancel discard, Reload after a conflict), a labelled field with its
// problem under it, Save of one section with expectedRevisions (409: a message and Reload), and
// the confirmed deletion of a section ("<section>": null). The "Edit overload protection" panel is
// here: an inbound and an outbound section, each field with its default (and environment
// variable) under it, the learning knobs under Advanced, validation as you type with central's
// messages, Save (only the fields filled in), Reset to deployment defaults and Cancel.

import { ApiError, policiesPath, request } from './api.js';
import { confirmAction, h, replace, uniqueId } from './dom.js';
import { MODE_NAMES, formatValue } from './policy.js';

/**
 * Opens the overload editor. Resolves when it closes, with { policies, message } after a save,
 * { reload } when the operator asked to start again from what central has now, or undefined when
 * cancelled.
 */
export function openEditor({ edgeId, model, policy, revision, reloadPolicies }) {
  return openDrawer({
    section: 'overload', policy, revision, reloadPolicies,
    form: (context) => editorForm({ edgeId, model, ...context }),
  });
}

/**
 * Opens a side panel editing one section. form({ state, titleId, onCancel, onSaved, onReload })
 * answers the panel's form for state { policy, revision }; onReload starts it again from what
 * central has now. Resolves as openEditor does.
 */
export function openDrawer({ section, policy, revision, reloadPolicies, form: formOf }) {
  return new Promise((resolve) => {
    let state = { policy, revision };
    let outcome;
    const titleId = uniqueId('editor-title');
    const dialog = h('dialog', { class: 'drawer', 'aria-labelledby': titleId });
    const finish = (value) => {
      outcome = value;
      dialog.close();
    };
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(outcome);
    });

    const render = () => {
      const form = formOf({
        state, titleId,
        onCancel: () => finish(undefined),
        onSaved: (policies, message) => finish({ policies, message }),
        onReload: async () => {
          try {
            const policies = await reloadPolicies();
            state = { policy: policies[section], revision: policies.revisions[section] };
            render();
          } catch (error) {
            finish({ reload: true });
          }
        },
      });
      replace(dialog, form);
      focusFirst(form);
    };
    render();
    document.body.appendChild(dialog);
    dialog.showModal();
    focusFirst(dialog);
  });
}

function focusFirst(container) {
  const first = container.querySelector('select, input, textarea, button');
  if (first) {
    first.focus();
  }
}

function editorForm({ edgeId, model, state, titleId, onCancel, onSaved, onReload }) {
  const stored = model.valuesOf(state.policy);
  const inputs = new Map(); // path → { field, control, problem }
  const footerStatus = h('div', { class: 'editor-status', role: 'status', 'aria-live': 'polite' });
  const saveButton = h('button', { type: 'submit', class: 'primary', text: 'Save overload protection' });

  const check = () => {
    const values = new Map();
    const inputProblems = new Map();
    for (const [path, entry] of inputs) {
      const read = model.readInput(entry.field, entry.control.value);
      if (read.problem) {
        inputProblems.set(path, read.problem);
      } else if (!read.empty) {
        values.set(path, read.value);
      }
    }
    const problems = model.validate(values, inputProblems);
    for (const [path, entry] of inputs) {
      showProblems(entry, problems.get(path));
    }
    return { values, problems };
  };

  const section = (name) => {
    const group = model.group(name);
    const fields = model.sectionFields(name);
    const main = fields.filter((field) => !field.advanced);
    const advanced = fields.filter((field) => field.advanced);
    const hintId = uniqueId(`${name}-hint`);
    return h('fieldset', { class: 'section', 'aria-describedby': hintId },
      h('legend', { text: group.label }),
      h('p', { class: 'hint', id: hintId, text: group.hint }),
      grouped(main),
      advanced.length > 0
        ? h('details', { class: 'advanced' }, h('summary', { text: 'Advanced' }), grouped(advanced, true))
        : null);
  };

  // Fields in table order; a heading (with its hint) where a group inside the section begins.
  const grouped = (fields, inAdvanced = false) => {
    const nodes = [];
    let current = null;
    for (const field of fields) {
      const parent = field.path.slice(0, field.path.lastIndexOf('.'));
      if (parent !== current) {
        current = parent;
        if (parent.includes('.') && !inAdvanced) {
          const group = model.group(parent);
          nodes.push(h('h4', { class: 'group', text: group.label }), h('p', { class: 'hint', text: group.hint }));
        }
      }
      nodes.push(fieldControl(field));
    }
    return nodes;
  };

  const fieldControl = (field) => {
    const id = `field-${field.path.replaceAll('.', '-')}`;
    const defaultId = `${id}-default`;
    const problemId = problemIdOf(id);
    const hintId = `${id}-hint`;
    const fallback = model.fallback(field);
    const value = stored.get(field.path);
    let control;
    if (field.type === 'enum' || field.type === 'boolean') {
      const choices = field.type === 'enum'
        ? field.allowedValues.map((v) => [v, MODE_NAMES[v] || v])
        : [['true', 'On'], ['false', 'Off']];
      control = h('select', { id, name: field.path, 'aria-describedby': `${hintId} ${defaultId} ${problemId}` },
        h('option', { value: '', text: `Deployment default (${choiceName(field, fallback.value)})` }),
        choices.map(([v, label]) => h('option', { value: v, text: label })));
      control.value = value === undefined ? '' : String(value);
      control.addEventListener('change', check);
    } else {
      control = h('input', {
        id, name: field.path, type: 'text', autocomplete: 'off', spellcheck: 'false',
        inputmode: field.type === 'integer' && field.min >= 0 ? 'numeric' : 'decimal',
        value: value === undefined ? '' : String(value),
        'aria-describedby': `${hintId} ${defaultId} ${problemId}`,
      });
      control.addEventListener('input', check);
    }
    const entry = fieldBlock({
      id, path: field.path, label: field.label, key: field.key, control,
      below: [h('p', { class: 'default', id: defaultId }, defaultText(field, fallback)), h('p', { class: 'help', id: hintId, text: field.hint })],
    });
    inputs.set(field.path, { field, ...entry });
    return entry.wrapper;
  };

  const save = async (event) => {
    event.preventDefault();
    const { values, problems } = check();
    if (problems.size > 0) {
      const firstPath = [...inputs.keys()].find((path) => problems.has(path));
      refuseWithProblems(footerStatus, [...problems.values()], inputs.get(firstPath));
      return;
    }
    if (values.size === 0) {
      replace(footerStatus, h('p', { class: 'error', text: 'No field is filled in. To go back to the deployment defaults, use Reset to deployment defaults.' }));
      return;
    }
    await saveSection({
      edgeId, section: 'overload', what: 'overload protection', revision: state.revision, value: model.policyOf(values),
      saveButton, footerStatus, onSaved, onReload,
    });
  };

  const reset = deleteFromEditor({
    remove: () => resetToDeploymentDefaults({ edgeId, revision: state.revision }),
    what: 'overload protection', footerStatus, onSaved, onReload,
  });

  const form = drawerForm({
    titleId, title: 'Edit overload protection', edgeId, state, onsubmit: save, footerStatus, saveButton, onCancel,
    body: [
      h('p', { class: 'lead', text: 'Every field is optional. An empty field is not sent, and the edge takes its deployment\'s value: the one written under the field.' }),
      section('inbound'),
      section('outbound')],
    deleteButton: state.policy ? h('button', { type: 'button', class: 'quiet', text: 'Reset to deployment defaults', onclick: reset }) : null,
  });
  check();
  return form;
}

function choiceName(field, value) {
  if (field.type === 'boolean') {
    return value ? 'on' : 'off';
  }
  return String(value);
}

/** The line under a field: its default on this edge, and where that comes from. */
function defaultText(field, fallback) {
  const value = field.type === 'boolean' ? choiceName(field, fallback.value) : formatValue(fallback.value);
  if (fallback.fromEnvironment) {
    return [`Default ${value}, from `, h('code', { text: field.env }), ` on this edge (built-in ${formatValue(fallback.builtIn)})`];
  }
  if (field.env) {
    return [`Default ${value} · `, h('code', { text: field.env })];
  }
  return `Default ${value} · no environment variable`;
}

// ---- What every section's editor shares ----

function problemIdOf(id) {
  return `${id}-problem`;
}

/**
 * The form of a side panel: its title with the edge and the revision it started from, the body,
 * and the footer with the status line and the buttons (the delete button if any, Cancel, Save).
 */
export function drawerForm({ titleId, title, edgeId, state, onsubmit, body, footerStatus, saveButton, onCancel, deleteButton }) {
  return h('form', { class: 'editor', novalidate: true, onsubmit },
    h('header', { class: 'drawer-head' },
      h('h2', { id: titleId, text: title }),
      h('p', { class: 'muted' }, `Edge ${edgeId} · `, state.policy ? `revision ${state.revision}` : 'nothing set yet')),
    h('div', { class: 'drawer-body' }, body),
    h('footer', { class: 'drawer-foot' },
      footerStatus,
      h('div', { class: 'actions' },
        deleteButton,
        h('button', { type: 'button', text: 'Cancel', onclick: onCancel }),
        saveButton)));
}

/**
 * The click handler of a panel's delete button: remove() (a deleteSection), then onSaved, or the
 * refusal in footerStatus (409 with a Reload button).
 */
export function deleteFromEditor({ remove, what, footerStatus, onSaved, onReload }) {
  return async () => {
    const outcome = await remove();
    if (outcome && outcome.policies) {
      onSaved(outcome.policies, outcome.message);
    } else if (outcome && outcome.error) {
      replace(footerStatus, outcome.conflict ? failure(outcome.conflict, onReload, what)
        : h('p', { class: outcome.error.kind, text: outcome.error.text }));
    }
  };
}

/**
 * A labelled field: its label (with the JSON key), the control (whose id is id), the problem
 * under it (hidden while there is none, id "<id>-problem"), then the nodes of below. Answers
 * { wrapper, control, problem } for showProblems.
 */
export function fieldBlock({ id, path, label, key, control, below = [] }) {
  const problem = h('p', { class: 'problem', id: problemIdOf(id), hidden: true });
  const wrapper = h('div', { class: 'field', 'data-field': path },
    h('label', { for: id }, label, ' ', h('code', { class: 'path', text: key })),
    control,
    problem,
    below);
  return { wrapper, control, problem };
}

/** Shows a field's problems (none: hides them) and marks its control invalid or not. */
export function showProblems(entry, messages = []) {
  replace(entry.problem, messages.map((message) => h('span', { text: message })));
  entry.problem.hidden = messages.length === 0;
  entry.control.setAttribute('aria-invalid', messages.length > 0 ? 'true' : 'false');
  entry.wrapper.classList.toggle('invalid', messages.length > 0);
}

/**
 * Save refused before sending: says how many problems there are (lists: each field's messages)
 * and moves the focus to the first field with one (opening the details it is in).
 */
export function refuseWithProblems(footerStatus, lists, firstEntry) {
  const count = lists.reduce((n, list) => n + list.length, 0);
  replace(footerStatus, h('p', { class: 'error' }, count === 1
    ? 'Fix the problem shown above first: nothing was sent.'
    : `Fix the ${count} problems shown above first: nothing was sent.`));
  const details = firstEntry.wrapper.closest('details');
  if (details) {
    details.open = true;
  }
  firstEntry.control.focus();
}

/**
 * PATCHes one section (and only it) with the revision the editor started from; then onSaved, or
 * the refusal in footerStatus (409 with a Reload button). what names the section in messages.
 */
export async function saveSection({ edgeId, section, what, revision, value, saveButton, footerStatus, onSaved, onReload }) {
  saveButton.disabled = true;
  replace(footerStatus, h('p', { text: 'Saving…' }));
  try {
    const policies = await request('PATCH', policiesPath(edgeId), { expectedRevisions: { [section]: revision }, [section]: value });
    onSaved(policies, {
      kind: 'ok',
      text: policies.revisions[section] === revision
        ? 'Saved: nothing changed.'
        : `Saved at revision ${policies.revisions[section]}; central pushes it to the edge.`,
    });
  } catch (error) {
    saveButton.disabled = false;
    replace(footerStatus, failure(error, onReload, what));
  }
}

/** What to show for a refused save or reset: 409 with a Reload button, else central's message. */
export function failure(error, onReload, what) {
  if (error instanceof ApiError && error.status === 409) {
    return h('div', { class: 'conflict', role: 'alert' },
      h('p', { text: `Someone else changed this edge's ${what} after you opened the editor, so nothing was saved. `
        + 'Reload to start again from what central has now (your changes here are discarded).' }),
      error.message ? h('p', { class: 'muted', text: `Central: ${error.message}` }) : null,
      h('button', { type: 'button', text: 'Reload', onclick: onReload }));
  }
  if (error instanceof ApiError && error.status === 400) {
    return h('p', { class: 'error', role: 'alert', text: 'Central refused the policy (400); its log names the first problem. Nothing was saved.' });
  }
  return h('p', { class: 'error', role: 'alert', text: `Not saved: ${error.message}` });
}

/**
 * Asks for confirmation, then deletes the edge's overload section ("overload": null, with the
 * revision the operator saw). Resolves with { policies, message }, { error, conflict } when central
 * refused, or undefined when the operator did not confirm.
 */
export function resetToDeploymentDefaults({ edgeId, revision }) {
  return deleteSection({
    edgeId, section: 'overload', revision,
    title: 'Reset to deployment defaults',
    message: `Delete the overload protection set on ${edgeId}? The edge goes back to its deployment's values: `
      + 'its HTTP_ADMISSION_* / HTTP_CLIENT_GUARD_* environment variables, else the built-in defaults.',
    confirmLabel: 'Reset to deployment defaults',
    refused: 'Not reset',
    done: (at) => `Reset: the edge runs on its deployment defaults (revision ${at}).`,
  });
}

/**
 * Asks for confirmation (title, message, confirmLabel), then deletes the section ("<section>":
 * null, with the revision the operator saw). Resolves with { policies, message } (done(revision)
 * its text), { error, conflict } when central refused (refused: the error's first words), or
 * undefined when the operator did not confirm.
 */
export async function deleteSection({ edgeId, section, revision, title, message, confirmLabel, refused, done }) {
  const sure = await confirmAction({ title, message, confirmLabel, danger: true });
  if (!sure) {
    return undefined;
  }
  try {
    const policies = await request('PATCH', policiesPath(edgeId), { expectedRevisions: { [section]: revision }, [section]: null });
    return { policies, message: { kind: 'ok', text: done(policies.revisions[section]) } };
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      return {
        error: { kind: 'error', text: `${refused}: someone else changed it first. ${error.message}` },
        conflict: error,
      };
    }
    return { error: { kind: 'error', text: `${refused}: ${error.message}` } };
  }
}
