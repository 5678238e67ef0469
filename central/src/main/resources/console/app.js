// The console's entry: finds or opens the session, then shows the view the URL names:
//   #/edges                      the Edges list
//   #/edges?selector=<selector>  the list filtered by a label selector
//   #/edges/<id>                 one edge's panel
// Views change with the URL, so the browser's back and forward buttons move between them.

import { ApiError, currentSession, logIn, logOut, resumeSession, whenSessionLost } from './api.js';
import { showAudit } from './audit.js';
import { h, replace } from './dom.js';
import { showEdge } from './edge.js';
import { showEdges } from './edges.js';

const main = document.getElementById('main');
const who = document.getElementById('who');
const nav = document.getElementById('nav');
const whoName = document.getElementById('who-name');

/** Marks the top bar's link of the current view. */
function markNav(view) {
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.view === view) {
      link.setAttribute('aria-current', 'page');
    } else {
      link.removeAttribute('aria-current');
    }
  }
}

function showWho() {
  const session = currentSession();
  who.hidden = session === null;
  nav.hidden = session === null;
  replace(whoName, session ? [h('span', { class: 'muted', text: 'Signed in as ' }), h('strong', { text: session.operator })] : []);
}

/** Closes open dialogs (the editor among them, discarding it) when the view changes under them. */
function closeDialogs() {
  for (const dialog of document.querySelectorAll('dialog[open]')) {
    dialog.close();
  }
}

async function route() {
  closeDialogs();
  if (currentSession() === null) {
    showLogin();
    return;
  }
  showWho();
  if (!location.hash) {
    history.replaceState(null, '', '#/edges');
  }
  const hash = location.hash;
  const edge = /^#\/edges\/([^?/]+)$/.exec(hash);
  markNav('edges');
  if (edge) {
    await showEdge(main, decodeURIComponent(edge[1]));
    return;
  }
  const audit = /^#\/audit(?:\?(.*))?$/.exec(hash);
  if (audit) {
    markNav('audit');
    await showAudit(main, new URLSearchParams(audit[1] || ''));
    return;
  }
  const list = /^#\/edges(?:\?(.*))?$/.exec(hash);
  if (list) {
    const selector = new URLSearchParams(list[1] || '').get('selector') || '';
    await showEdges(main, selector);
    return;
  }
  location.replace('#/edges');
}

function showLogin(notice) {
  closeDialogs();
  showWho();
  const username = h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true, spellcheck: 'false' });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const message = h('p', { class: 'login-message', role: 'alert' }, notice ? h('span', { class: 'muted', text: notice }) : null);
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Log in' });
  let countdown = null;

  const wait = (seconds) => {
    clearInterval(countdown);
    let left = seconds;
    const show = () => replace(message, h('span', { class: 'error', text: `Too many failed logins. Try again in ${left} s.` }));
    submit.disabled = true;
    show();
    countdown = setInterval(() => {
      left -= 1;
      if (left <= 0) {
        clearInterval(countdown);
        submit.disabled = false;
        replace(message, h('span', { class: 'muted', text: 'You can try again now.' }));
        password.focus();
      } else {
        show();
      }
    }, 1000);
  };

  const form = h('form', {
    class: 'login card',
    onsubmit: async (event) => {
      event.preventDefault();
      replace(message);
      submit.disabled = true;
      try {
        await logIn(username.value.trim(), password.value);
        clearInterval(countdown);
        await route();
      } catch (error) {
        submit.disabled = false;
        password.value = '';
        if (error instanceof ApiError && error.status === 429) {
          wait(error.retryAfterSeconds || 1);
        } else if (error instanceof ApiError && error.status === 401) {
          replace(message, h('span', { class: 'error', text: 'Wrong username or password.' }));
          password.focus();
        } else {
          replace(message, h('span', { class: 'error', text: `Could not log in: ${error.message}` }));
        }
      }
    },
  },
  h('h1', { text: 'Log in to central' }),
  h('div', { class: 'field' }, h('label', { for: 'username', text: 'Username' }), username),
  h('div', { class: 'field' }, h('label', { for: 'password', text: 'Password' }), password),
  message,
  h('div', { class: 'actions' }, submit),
  h('p', { class: 'help', text: 'An administrator creates operators with a password (POST /configuration/operators).' }));
  replace(main, h('section', { class: 'page narrow' }, form));
  username.focus();
}

document.getElementById('logout').addEventListener('click', async () => {
  try {
    await logOut();
  } finally {
    showLogin('You are logged out.');
  }
});

whenSessionLost(() => showLogin('Your session has ended: log in again.'));
window.addEventListener('hashchange', () => {
  route();
});

(async () => {
  try {
    await resumeSession();
    await route();
  } catch (error) {
    replace(main, h('p', { class: 'error', role: 'alert', text: `Central did not answer: ${error.message}` }));
  }
})();
