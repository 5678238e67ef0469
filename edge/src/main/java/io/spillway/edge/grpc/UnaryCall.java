package io.spillway.edge.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One unary gRPC call made for a request. Everything gRPC does for it — building the message,
 * starting, cancelling, reading the answer — happens on one of the channels' event loops (one loop
 * per call, so a cancel comes after its start); the answer goes to the request's worker once, as
 * the caller's own type {@code A}: read from the response, or made from the failure.
 */
public final class UnaryCall<Q, R, A> implements StreamObserver<R> {
  private final Channel channel;
  private final MethodDescriptor<Q, R> method;
  private final CallOptions options;
  private final Executor io;
  private final Executor loop;
  private final Function<R, A> answer;
  private final BiFunction<String, Boolean, A> error;
  private final Consumer<A> onAnswer;
  private final AtomicBoolean answered = new AtomicBoolean();
  /** On {@code io} only. */
  private ClientCall<Q, R> call;

  UnaryCall(Channel channel, MethodDescriptor<Q, R> method, CallOptions options, Executor io, Executor loop,
      Function<R, A> answer, BiFunction<String, Boolean, A> error, Consumer<A> onAnswer) {
    this.channel = channel;
    this.method = method;
    this.options = options;
    this.io = io;
    this.loop = loop;
    this.answer = answer;
    this.error = error;
    this.onAnswer = onAnswer;
  }

  /** From the request's worker: hands the call to the channel's loop. */
  void start(Supplier<Q> request) {
    try {
      io.execute(() -> send(request));
    } catch (RejectedExecutionException e) {
      deliver(error.apply("the gRPC clients are closed", false));
    }
  }

  private void send(Supplier<Q> request) {
    if (answered.get()) {
      return; // cancelled before it started
    }
    Q message;
    try {
      message = request.get();
    } catch (RuntimeException e) {
      deliver(error.apply("cannot build the request: " + e, false));
      return;
    }
    call = channel.newCall(method, options);
    ClientCalls.asyncUnaryCall(call, message, this);
  }

  /** Abandons the call (the request went away); no answer comes after it. */
  public void cancel() {
    answered.set(true);
    try {
      io.execute(() -> {
        if (call != null) {
          call.cancel("the request went away", null);
        }
      });
    } catch (RejectedExecutionException e) {
      // Closed: the channel's calls are gone already.
    }
  }

  @Override
  public void onNext(R response) {
    A a;
    try {
      a = answer.apply(response);
    } catch (RuntimeException e) {
      a = error.apply("cannot read the response: " + e, false);
    }
    deliver(a);
  }

  @Override
  public void onError(Throwable t) {
    Status status = Status.fromThrowable(t);
    deliver(error.apply(status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription()),
        status.getCode() == Status.Code.DEADLINE_EXCEEDED));
  }

  @Override
  public void onCompleted() {
    deliver(error.apply("the call ended without a response", false));
  }

  private void deliver(A a) {
    if (!answered.compareAndSet(false, true)) {
      return;
    }
    try {
      loop.execute(() -> onAnswer.accept(a));
    } catch (RejectedExecutionException e) {
      // The worker has stopped: the request is gone with it.
    }
  }
}
