/** Operators, permissions, API tokens, console sessions and the first-start administrator. */
package io.spillway.central.auth;
