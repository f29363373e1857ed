package dev.rota.store;

import io.micronaut.serde.annotation.Serdeable;

/**
 * A fetch of an image a worker's agent has under way ({@code pulling}) or that failed ({@code
 * failed}), with its last message.
 */
@Serdeable
public record WorkerPull(String state, String message) {
  public static final String PULLING = "pulling";
  public static final String FAILED = "failed";
}
