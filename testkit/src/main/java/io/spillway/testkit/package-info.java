/** Test helpers for Spillway: a real origin server, raw and HTTP/2 clients, free ports, the edge as an OS process. */
package io.spillway.testkit;
