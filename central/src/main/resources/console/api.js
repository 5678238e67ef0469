// Central's API from the console: same origin, the session cookie (HttpOnly, so never seen here)
// and, on every request that changes something, the session's CSRF token in X-CSRF-Token.

const CSRF_HEADER = 'X-CSRF-Token';

/** An answer other than 2xx: its status, central's error message (if any) and its headers. */
export class ApiError extends Error {
  constructor(status, message, headers) {
    super(message || `central answered ${status}`);
    this.status = status;
    this.headers = headers;
  }

  /** Seconds from Retry-After, or null. */
  get retryAfterSeconds() {
    const value = this.headers.get('Retry-After');
    const seconds = value === null ? NaN : Number.parseInt(value, 10);
    return Number.isFinite(seconds) ? seconds : null;
  }
}

let session = null; // { operator, permissions, csrfToken }
let onSessionLost = () => {};

/** The logged-in operator, or null. */
export function currentSession() {
  return session;
}

/** Whether the operator may change edges and policies. */
export function canManage() {
  return session !== null && (session.permissions.includes('edges:manage') || session.permissions.includes('admin'));
}

/** Called when central says the session is gone (expired, logged out elsewhere). */
export function whenSessionLost(callback) {
  onSessionLost = callback;
}

/**
 * One request. body is sent as JSON (undefined: no body). Answers the parsed JSON (null for an
 * empty body); throws ApiError for any status other than 2xx.
 */
export async function request(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  if (method !== 'GET' && session !== null) {
    headers[CSRF_HEADER] = session.csrfToken;
  }
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const text = await response.text();
  let json = null;
  if (text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (!response.ok) {
    const error = new ApiError(response.status, json && typeof json.error === 'string' ? json.error : '', response.headers);
    if (response.status === 401 && session !== null && !path.startsWith('/auth/')) {
      session = null;
      onSessionLost();
    }
    throw error;
  }
  return json;
}

/** Finds the session this browser already has (the cookie), or null. */
export async function resumeSession() {
  try {
    session = await request('GET', '/auth/session');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      session = null;
    } else {
      throw error;
    }
  }
  return session;
}

/** Logs in; throws ApiError (401 wrong username or password, 429 with Retry-After). */
export async function logIn(username, password) {
  session = await request('POST', '/auth/login', { username, password });
  return session;
}

/** Ends the session. */
export async function logOut() {
  try {
    await request('POST', '/auth/logout');
  } finally {
    session = null;
  }
}

/** The path of the edge registry, optionally for a label selector. */
export function edgesPath(selector) {
  return selector ? `/configuration/edges?selector=${encodeURIComponent(selector)}` : '/configuration/edges';
}

/** The path of one edge. */
export function edgePath(id) {
  return `/configuration/edges/${encodeURIComponent(id)}`;
}

/** The path of an edge's policy sections. */
export function policiesPath(id) {
  return `/configuration/edges/policies?edgeId=${encodeURIComponent(id)}`;
}
