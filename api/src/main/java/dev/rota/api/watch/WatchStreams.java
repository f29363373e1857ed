package dev.rota.api.watch;

import dev.rota.api.QueryValues;
import dev.rota.api.problem.Problems;
import dev.rota.store.ChangeRepository;
import dev.rota.store.ChangeRow;
import io.micronaut.json.JsonMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * Watches (Kubernetes' {@code ?watch=true}) over the change feed, as NDJSON: one JSON object a
 * line.
 *
 * <ul>
 *   <li>Without a {@code resourceVersion}: every current object as {@code snapshot}, then {@code
 *       synced}; with one: only what changed after it.
 *   <li>Then {@code upsert} (the object as it is now) or {@code delete} ({@code {"name"}}) for each
 *       change, and {@code bookmark} when quiet for a while; every line carries a {@code
 *       resourceVersion} to resume from. An object changed several times may be sent once, as it is
 *       now.
 *   <li>A {@code resourceVersion} older than the retained feed (an hour) is a 410: list again.
 * </ul>
 *
 * <p>Change ids are drawn when a write happens, not when it commits, so a later id can be visible
 * before an earlier one: a watch advances its {@code resourceVersion} only over ids that are all
 * visible, and waits up to {@link #HOLE_WAIT} for a missing one (a transaction still open) before
 * taking it for rolled back. Resuming from any line's {@code resourceVersion} therefore misses
 * nothing; it may repeat.
 */
@Singleton
public class WatchStreams {
  public static final String NDJSON = "application/x-ndjson";

  /** The form of a resourceVersion (empty: none); the document's pattern for it. */
  public static final String RESOURCE_VERSION = "^([0-9]{1,18})?$";

  static final Duration POLL = Duration.ofMillis(250);
  static final Duration HOLE_WAIT = Duration.ofSeconds(2);
  static final Duration BOOKMARK_EVERY = Duration.ofSeconds(10);
  private static final int BATCH = 1000;

  private final ChangeRepository changes;
  private final JsonMapper json;
  private final Clock clock;
  private final java.util.concurrent.Semaphore open;
  private final int maxWatches;

  /** At most {@link dev.rota.api.ApiSettings#maxWatches} watches open at once on this host. */
  public WatchStreams(
      ChangeRepository changes, JsonMapper json, Clock clock, dev.rota.api.ApiSettings settings) {
    this.maxWatches = settings.maxWatches();
    this.open = new java.util.concurrent.Semaphore(maxWatches);
    this.changes = changes;
    this.json = json;
    this.clock = clock;
  }

  /** How to show one kind of object. */
  public record Kind<T>(
      String name,
      Supplier<List<T>> all,
      Function<String, Optional<T>> find,
      Function<T, String> nameOf) {}

  /** The longest {@code timeoutSeconds} a watch may ask for: a day. */
  public static final int MAX_TIMEOUT_SECONDS = 86_400;

  /**
   * {@code timeoutSeconds} as the query gave it: how long a watch lasts before the stream ends (and
   * the client watches again from its last resourceVersion), as in Kubernetes; null for as long as
   * the client stays.
   */
  public static Duration timeout(@io.micronaut.core.annotation.Nullable String timeoutSeconds) {
    if (timeoutSeconds == null) {
      return null;
    }
    return Duration.ofSeconds(
        QueryValues.wholeNumber("timeoutSeconds", timeoutSeconds, 1, MAX_TIMEOUT_SECONDS));
  }

  /** A watch that ends after {@code timeout} (null: never). */
  public <T> Flux<byte[]> watch(
      Kind<T> kind,
      String resourceVersion,
      @io.micronaut.core.annotation.Nullable Duration timeout) {
    return lasting(watch(kind, resourceVersion), timeout);
  }

  /**
   * Checked before any line is sent: a bad or too old {@code resourceVersion} is an answer of its
   * own.
   */
  public <T> Flux<byte[]> watch(Kind<T> kind, String resourceVersion) {
    Long from = resourceVersion(resourceVersion);
    if (from != null) {
      Long first = changes.firstId();
      if (first != null && from < first - 1) {
        throw Problems.gone(
            "resourceVersion",
            resourceVersion
                + " is older than the changes kept ("
                + ChangeRepository.RETAINED.toMinutes()
                + " min); list again, or watch without it for a new snapshot");
      }
    }
    return held("watch-" + kind.name(), sink -> run(kind, from, sink));
  }

  /**
   * A stream a thread of its own writes for as long as the client stays, counted against the
   * streams this host keeps open (watches and followed logs alike): one more is a 429. The thread
   * is interrupted when the client leaves.
   */
  public Flux<byte[]> held(String thread, java.util.function.Consumer<FluxSink<byte[]>> body) {
    if (!open.tryAcquire()) {
      throw Problems.tooMany(
          maxWatches
              + " watches and followed logs are open on this host, the most it keeps; try again"
              + " later");
    }
    Flux<byte[]> stream =
        Flux.create(
            sink -> {
              Thread t = new Thread(() -> body.accept(sink), thread);
              t.setDaemon(true);
              sink.onDispose(t::interrupt);
              t.start();
            });
    return stream.doFinally(end -> open.release());
  }

  /**
   * A held stream that ends after {@code timeout} (null: when its writer or the client ends it).
   */
  public static Flux<byte[]> lasting(
      Flux<byte[]> stream, @io.micronaut.core.annotation.Nullable Duration timeout) {
    return timeout == null ? stream : stream.take(timeout);
  }

  /** {@code watch} as the query gave it: absent, true or false; anything else is a 400. */
  public static boolean requested(@io.micronaut.core.annotation.Nullable String watch) {
    if (watch == null || watch.equals("false")) {
      return false;
    }
    if (watch.equals("true")) {
      return true;
    }
    throw Problems.badRequest("watch", "must be true or false, got \"" + watch + "\"");
  }

  /** A watch streams everything of its kind; a list's filters and paging do not apply to it. */
  public static void refuseFilters(
      String status,
      String worker,
      String set,
      String limit,
      String cursor,
      String labelSelector,
      String namespace) {
    Map<String, Object> given = new LinkedHashMap<>();
    given.put("namespace", namespace);
    given.put("labelSelector", labelSelector);
    given.put("status", status);
    given.put("worker", worker);
    given.put("set", set);
    given.put("limit", limit);
    given.put("cursor", cursor);
    given.forEach(
        (field, value) -> {
          if (value != null) {
            throw Problems.badRequest(
                field, "does not go with watch=true: a watch streams every object and each change");
          }
        });
  }

  /**
   * {@code resourceVersion} as the query gave it, null for none; a 400 when it is not one, watch or
   * not.
   */
  public static Long resourceVersion(String resourceVersion) {
    if (resourceVersion == null || resourceVersion.isEmpty()) {
      return null;
    }
    if (resourceVersion.matches(RESOURCE_VERSION)) {
      return Long.parseLong(resourceVersion);
    }
    throw Problems.badRequest(
        "resourceVersion",
        "must be a resourceVersion a list or watch line gave, got " + resourceVersion);
  }

  private <T> void run(Kind<T> kind, Long from, FluxSink<byte[]> sink) {
    try {
      long mark;
      if (from == null) {
        mark = visibleMark();
        for (T object : kind.all().get()) {
          sink.next(line("snapshot", mark, object));
        }
        sink.next(line("synced", mark, null));
      } else {
        mark = from;
      }
      Map<Long, Instant> holes = new HashMap<>();
      Instant lastSent = clock.instant();
      while (!sink.isCancelled() && !Thread.currentThread().isInterrupted()) {
        long resolved = resolve(mark, holes);
        if (resolved > mark) {
          LinkedHashSet<String> names = new LinkedHashSet<>();
          for (ChangeRow c : changes.after(mark, kind.name(), Integer.MAX_VALUE)) {
            if (c.id() <= resolved) {
              names.remove(c.name()); // in the order of each one's last change
              names.add(c.name());
            }
          }
          for (String name : names) {
            Optional<T> now = kind.find().apply(name);
            sink.next(
                now.isPresent()
                    ? line("upsert", resolved, now.get())
                    : line("delete", resolved, Map.of("name", name)));
          }
          mark = resolved;
          if (!names.isEmpty()) {
            lastSent = clock.instant();
          }
        }
        if (Duration.between(lastSent, clock.instant()).compareTo(BOOKMARK_EVERY) >= 0) {
          sink.next(line("bookmark", mark, null));
          lastSent = clock.instant();
        }
        Thread.sleep(POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      sink.error(e); // the client resumes from the last resourceVersion it got
      return;
    }
    sink.complete();
  }

  /**
   * Where a new watch starts: the newest change id below which every id is visible now, so that a
   * change committed after its snapshot was read is still sent (perhaps twice, never not).
   */
  private long visibleMark() {
    Long last = changes.lastId();
    if (last == null) {
      return 0;
    }
    List<Long> recent = changes.idsAfter(Math.max(0, last - BATCH), BATCH + 1);
    for (int i = 1; i < recent.size(); i++) {
      if (recent.get(i) != recent.get(i - 1) + 1) {
        return recent.get(i - 1);
      }
    }
    return last;
  }

  /**
   * The highest id above {@code mark} up to which every id is visible or waited for long enough.
   */
  private long resolve(long mark, Map<Long, Instant> holes) {
    long resolved = mark;
    Instant now = clock.instant();
    for (long id : changes.idsAfter(mark, BATCH)) {
      if (id != resolved + 1) {
        Instant seen = holes.computeIfAbsent(resolved + 1, k -> now);
        if (Duration.between(seen, now).compareTo(HOLE_WAIT) < 0) {
          break; // a transaction that drew an earlier id may not have committed yet
        }
        holes.remove(resolved + 1);
      }
      resolved = id;
    }
    return resolved;
  }

  private byte[] line(String type, long resourceVersion, Object object) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("type", type);
    line.put("resourceVersion", Long.toString(resourceVersion));
    if (object != null) {
      line.put("object", object);
    }
    try {
      byte[] body = json.writeValueAsBytes(line);
      byte[] withNewline = new byte[body.length + 1];
      System.arraycopy(body, 0, withNewline, 0, body.length);
      withNewline[body.length] = '\n';
      return withNewline;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
