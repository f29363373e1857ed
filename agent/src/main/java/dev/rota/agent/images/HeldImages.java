package dev.rota.agent.images;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rota.agent.machine.JsonFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The images this worker holds, each with when a task last used it, which the controller's
 * placement prefers (Scoot's snapshot groups): what the {@code qemu} runtime's {@link ImageCache}
 * holds, and what the {@code synthetic} runtime pretends to hold (it fetches nothing). The {@link
 * #MAX} most recent are kept, on disk so that a restarted agent still knows them. Every change
 * moves the version, by which the link to the controller tells what it has not yet said.
 */
public final class HeldImages {
  private static final Logger log = LoggerFactory.getLogger(HeldImages.class);

  /** As many as a worker's image cache usually keeps warm; the controller takes up to 64. */
  static final int MAX = 32;

  /**
   * What is held at one version, most recently used first, and the fetches asked ahead that are
   * under way or failed, as the controller's API spells them.
   */
  public record Report(
      long version, List<Map<String, String>> images, List<Map<String, String>> pulls) {}

  private final Path file;
  private final ObjectMapper json;
  private final Clock clock;
  private final Map<String, Instant> lastUsed = new HashMap<>();
  private long version;

  /** Fetches asked ahead ({@link Prefetcher}), under way or failed: state and message by image. */
  private final Map<String, String[]> pulls = new java.util.TreeMap<>();

  public HeldImages(Path file, ObjectMapper json, Clock clock) {
    this.file = file;
    this.json = json;
    this.clock = clock;
    load();
  }

  /** A task of {@code image} starts here now; null (a task without one) is nothing. */
  public synchronized void used(String image) {
    if (image == null || image.isBlank()) {
      return;
    }
    lastUsed.put(image, clock.instant());
    while (lastUsed.size() > MAX) {
      lastUsed.entrySet().stream()
          .min(Map.Entry.comparingByValue())
          .ifPresent(e -> lastUsed.remove(e.getKey()));
    }
    version++;
    save();
  }

  /** The image is no longer here (evicted from the cache). */
  synchronized void forget(String image) {
    if (lastUsed.remove(image) != null) {
      version++;
      save();
    }
  }

  /** A fetch asked ahead is under way; {@code message} says how far. */
  synchronized void pulling(String image, String message) {
    pulls.put(image, new String[] {"pulling", message});
    version++;
  }

  /** A fetch asked ahead failed, saying why. */
  synchronized void pullFailed(String image, String message) {
    pulls.put(image, new String[] {"failed", message});
    version++;
  }

  /** A fetch asked ahead is done (the image is held now) or no longer asked. */
  synchronized void pullEnded(String image) {
    if (pulls.remove(image) != null) {
      version++;
    }
  }

  public synchronized Report report() {
    List<Map<String, String>> images = new ArrayList<>(lastUsed.size());
    lastUsed.entrySet().stream()
        .sorted(
            Map.Entry.<String, Instant>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()))
        .forEach(
            e -> {
              Map<String, String> one = new LinkedHashMap<>();
              one.put("image", e.getKey());
              one.put("lastUsedAt", e.getValue().toString());
              images.add(one);
            });
    List<Map<String, String>> fetching = new ArrayList<>(pulls.size());
    pulls.forEach(
        (image, p) -> {
          Map<String, String> one = new LinkedHashMap<>();
          one.put("image", image);
          one.put("state", p[0]);
          one.put("message", p[1].length() > 1000 ? p[1].substring(0, 1000) : p[1]);
          fetching.add(one);
        });
    return new Report(version, images, fetching);
  }

  private void load() {
    if (!Files.exists(file)) {
      return;
    }
    try {
      Map<String, String> stored =
          json.readValue(file.toFile(), new TypeReference<Map<String, String>>() {});
      stored.forEach((image, at) -> lastUsed.put(image, Instant.parse(at)));
    } catch (IOException | RuntimeException e) {
      // Only a preference is lost: the images are learnt again as tasks run.
      log.warn("held images record {} unreadable, starting without it: {}", file, e.toString());
      lastUsed.clear();
    }
  }

  private void save() {
    Map<String, String> stored = new LinkedHashMap<>();
    lastUsed.forEach((image, at) -> stored.put(image, at.toString()));
    try {
      JsonFiles.writeWhole(json, file, stored);
    } catch (IOException e) {
      log.warn("cannot record held images in {}: {}", file, e.toString());
    }
  }
}
