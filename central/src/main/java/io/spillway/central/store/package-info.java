/** The database: connection pool, Flyway migrations and the transaction helper every store uses. */
package io.spillway.central.store;
