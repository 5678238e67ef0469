package io.spillway.testkit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The thread-safe record of the requests one {@link OriginServer} received: event-loop threads
 * append, test threads read. Keeps the most recent {@code capacity} requests and counts all of them,
 * so a load test against an origin does not grow without bound.
 */
final class RequestJournal {

    private final int capacity;
    private final ArrayDeque<RecordedRequest> recent = new ArrayDeque<>();
    private int count;

    RequestJournal(int capacity) {
        this.capacity = capacity;
    }

    synchronized void add(RecordedRequest request) {
        if (recent.size() == capacity) {
            recent.removeFirst();
        }
        recent.addLast(request);
        count++;
        notifyAll();
    }

    synchronized List<RecordedRequest> snapshot() {
        return List.copyOf(recent);
    }

    synchronized RecordedRequest last() {
        return recent.peekLast();
    }

    synchronized int count() {
        return count;
    }

    synchronized void clear() {
        recent.clear();
        count = 0;
    }

    /** Waits until at least {@code atLeast} requests were counted; false when the timeout passed first. */
    synchronized boolean awaitCount(int atLeast, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count < atLeast) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            long millis = Math.max(1, left / 1_000_000);
            wait(millis);
        }
        return true;
    }
}
