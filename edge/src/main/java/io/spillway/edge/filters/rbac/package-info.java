/** Envoy's role-based access control HTTP filter: policies that allow, deny or log requests, enforced or in shadow. */
package io.spillway.edge.filters.rbac;
