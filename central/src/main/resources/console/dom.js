// Building the page: elements are made with h() and text nodes only, never from markup strings
// (the Content-Security-Policy forbids it through Trusted Types), and no inline style is set.

/**
 * One element. attrs: "class", "text" (its text content), on<event> functions, true/false for
 * boolean attributes, null/undefined to leave an attribute out, anything else as the attribute's
 * text. children: nodes, strings, or arrays of them; null and false are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) {
      continue;
    }
    if (name === 'text') {
      el.textContent = value;
    } else if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    if (Array.isArray(child)) {
      append(el, child);
    } else if (child instanceof Node) {
      el.appendChild(child);
    } else {
      el.appendChild(document.createTextNode(String(child)));
    }
  }
}

/** Replaces everything inside el with the children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** An id unique on this page, for label/for and aria-describedby pairs. */
let lastId = 0;
export function uniqueId(prefix) {
  lastId += 1;
  return `${prefix}-${lastId}`;
}

/**
 * A <time> showing an ISO-8601 instant in the browser's time zone, with the UTC instant in its
 * title; a dash when there is none.
 */
export function time(iso) {
  if (!iso) {
    return h('span', { class: 'muted', text: 'never' });
  }
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) {
    return h('span', { text: iso });
  }
  const local = at.toLocaleString(undefined, {
    year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
  return h('time', { datetime: at.toISOString(), title: `${at.toISOString().replace('.000Z', 'Z')} (UTC)`, text: local });
}

/** Label chips for a label map. */
export function labelChips(labels) {
  const keys = Object.keys(labels || {}).sort();
  if (keys.length === 0) {
    return h('span', { class: 'muted', text: 'no labels' });
  }
  return h('ul', { class: 'chips', 'aria-label': 'labels' },
    keys.map((key) => h('li', { class: 'chip', text: `${key}=${labels[key]}` })));
}

/** The short name of an xDS type URL, as central's docs name the types. */
export function typeName(typeUrl) {
  const names = {
    'type.googleapis.com/envoy.config.cluster.v3.Cluster': 'clusters',
    'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment': 'endpoints',
    'type.googleapis.com/envoy.config.listener.v3.Listener': 'listeners',
    'type.googleapis.com/envoy.config.route.v3.RouteConfiguration': 'routes',
    'type.googleapis.com/spillway.policy.v1.OverloadPolicy': 'overload policy',
    'type.googleapis.com/envoy.service.runtime.v3.Runtime': 'runtimes',
  };
  return names[typeUrl] || typeUrl.slice(typeUrl.lastIndexOf('.') + 1);
}

/** A version string, cut short when it is a long digest, with the whole of it in a title. */
export function version(text) {
  const value = String(text);
  return value.length > 12
    ? h('code', { class: 'version', title: value, text: `${value.slice(0, 10)}…` })
    : h('code', { class: 'version', text: value });
}

/**
 * A modal dialog (the browser's <dialog>: focus stays inside, Escape closes it). content is a
 * function given a close(result) callback and answering the dialog's children. Resolves with what
 * close() was given, or undefined when the dialog was dismissed.
 */
export function modal({ title, className = '', content }) {
  return new Promise((resolve) => {
    const titleId = uniqueId('dialog-title');
    const dialog = h('dialog', { class: `modal ${className}`.trim(), 'aria-labelledby': titleId });
    let result;
    const close = (value) => {
      result = value;
      dialog.close();
    };
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    append(dialog, [h('h2', { id: titleId, text: title }), content(close)]);
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}

/** Asks a yes/no question in a modal; resolves true only for the confirming button. */
export function confirmAction({ title, message, confirmLabel, danger = false }) {
  return modal({
    title,
    content: (close) => h('div', {},
      h('p', { text: message }),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'quiet', text: 'Cancel', onclick: () => close(false) }),
        h('button', { type: 'button', class: danger ? 'danger' : 'primary', text: confirmLabel, onclick: () => close(true) }))),
  }).then((answer) => answer === true);
}

/** Copies text to the clipboard; answers whether it worked. */
export async function copyText(text, fallbackInput) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Not a secure context or no permission: select the text so the operator can copy it.
    if (fallbackInput) {
      fallbackInput.focus();
      fallbackInput.select();
    }
    return false;
  }
}
