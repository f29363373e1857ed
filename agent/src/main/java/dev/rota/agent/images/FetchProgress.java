package dev.rota.agent.images;

import java.util.Optional;

/**
 * When a fetch says how far it got: at each tenth of a known size ({@code pulling 40% of 2048
 * MiB}), or every five seconds when the size is unknown ({@code pulling 300 MiB}). Each line
 * becomes the VM's status and an event, so a fetch tells eleven at most, or one each five seconds,
 * however small its reads.
 */
final class FetchProgress {
  static final long UNKNOWN_SIZE_EVERY_NANOS = 5_000_000_000L;

  private final long size;
  private int lastTenth = -1;
  private long lastToldAt;
  private boolean told;

  /**
   * @param size the bytes to come, or 0 or less when the source does not say
   */
  FetchProgress(long size) {
    this.size = size;
  }

  /** What to say now that {@code copied} bytes are here, {@code nanos} on a monotonic clock. */
  Optional<String> after(long copied, long nanos) {
    if (size > 0) {
      int percent = (int) Math.min(100, copied * 100 / size);
      if (percent / 10 == lastTenth) {
        return Optional.empty();
      }
      lastTenth = percent / 10;
      return Optional.of("pulling " + percent + "% of " + mib(size));
    }
    if (told && nanos - lastToldAt < UNKNOWN_SIZE_EVERY_NANOS) {
      return Optional.empty();
    }
    told = true;
    lastToldAt = nanos;
    return Optional.of("pulling " + mib(copied));
  }

  static String mib(long bytes) {
    return bytes < 1024 * 1024 ? bytes + " bytes" : (bytes / (1024 * 1024)) + " MiB";
  }
}
