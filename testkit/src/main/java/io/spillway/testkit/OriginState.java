package io.spillway.testkit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What every connection of one {@link OriginServer} shares: its name, its request journal, the
 * injected failures still to serve and the connection counter. Safe to use from any thread.
 */
final class OriginState {

    /** The next {@code remaining} requests answer {@code status}. */
    private record FailurePlan(int remaining, int status) {}

    private final String name;
    private final RequestJournal journal;
    private final AtomicReference<FailurePlan> failures = new AtomicReference<>(new FailurePlan(0, 0));
    private final AtomicInteger connectionsAccepted = new AtomicInteger();
    private final java.util.Map<String, String> responseHeaders;

    OriginState(String name, int maxRecordedRequests) {
        this(name, maxRecordedRequests, java.util.Map.of());
    }

    OriginState(String name, int maxRecordedRequests, java.util.Map<String, String> responseHeaders) {
        this.name = name;
        this.journal = new RequestJournal(maxRecordedRequests);
        this.responseHeaders = java.util.Map.copyOf(responseHeaders);
    }

    /** Fields added to every answer (besides {@code x-origin}). */
    java.util.Map<String, String> responseHeaders() {
        return responseHeaders;
    }

    String name() {
        return name;
    }

    RequestJournal journal() {
        return journal;
    }

    void failNext(int count, int status) {
        failures.set(new FailurePlan(count, status));
    }

    /** Claims one injected failure: the status to answer, or 0 when none is pending. */
    int takeInjectedFailure() {
        while (true) {
            FailurePlan plan = failures.get();
            if (plan.remaining() == 0) {
                return 0;
            }
            if (failures.compareAndSet(plan, new FailurePlan(plan.remaining() - 1, plan.status()))) {
                return plan.status();
            }
        }
    }

    /** Counts one accepted connection and returns its id, starting at 1. */
    int connectionAccepted() {
        return connectionsAccepted.incrementAndGet();
    }

    int connectionsAccepted() {
        return connectionsAccepted.get();
    }
}
