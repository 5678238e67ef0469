/** Spillway central, the control plane: process entry point and wiring of the HTTP API, store and auth. */
package io.spillway.central;
