/** The HTTP side of central: routing with permissions, body limits, JSON, errors and request metrics. */
package io.spillway.central.api;
