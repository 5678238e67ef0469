/** The web console: its static files, read from the jar and served with a strict Content-Security-Policy. */
package io.spillway.central.console;
