package dev.rota.agent.link;

import dev.rota.agent.config.AgentConfig;
import dev.rota.agent.images.HeldImages;
import dev.rota.agent.machine.Tools;
import dev.rota.agentapi.HeartbeatHeaders;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's side of the controller: registers its worker, then heartbeats every interval (its
 * own, or the longer one the controller paces the fleet to), saying what images it holds whenever
 * that changed; re-registers when the controller no longer knows it (404), and keeps trying,
 * backing off, while the controller is unreachable. Its tasks are untouched by any of this.
 */
public final class ControllerLink {
  private static final Logger log = LoggerFactory.getLogger(ControllerLink.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final AgentConfig config;
  private final String endpoint;
  private final ControllerClient controller;
  private final ScheduledExecutorService timers;
  private final HeldImages images;

  /** The version of the held images the controller last accepted; -1 before it accepted any. */
  private volatile long imagesSaid = -1;

  private volatile boolean registered;
  private volatile int failures;

  /**
   * The interval beats go at: the agent's own, or the longer one the controller last paced the
   * fleet to.
   */
  private volatile Duration paced;

  private volatile boolean closed;

  /** Labels the agent found out about its machine ({@link Isolation}). */
  private final WorkerFacts facts;

  private final Fence fence;

  /**
   * @param certificateSha256 the pin the controller is to hold for this agent's HTTPS; null for
   *     plain HTTP
   */
  private final String certificateSha256;

  private final com.fasterxml.jackson.databind.ObjectMapper json =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** Where the images the controller asks to fetch ahead go ({@link Prefetcher}). */
  private final java.util.function.Consumer<List<String>> prefetch;

  private final ControllerClock controllerClock;

  public ControllerLink(
      AgentConfig config,
      String endpoint,
      String certificateSha256,
      ControllerClient controller,
      ScheduledExecutorService timers,
      HeldImages images,
      WorkerFacts facts,
      Fence fence,
      ControllerClock controllerClock,
      java.util.function.Consumer<List<String>> prefetch) {
    this.prefetch = prefetch;
    this.controllerClock = controllerClock;
    this.fence = fence;
    this.facts = facts;
    this.certificateSha256 = certificateSha256;
    this.images = images;
    this.config = config;
    this.endpoint = endpoint;
    this.controller = controller;
    this.timers = timers;
    this.paced = config.heartbeatInterval();
  }

  /** The images a heartbeat's answer asks to fetch ahead: {@code {"prefetch": [...]}}. */
  private List<String> asked(String body) {
    try {
      List<String> images = new java.util.ArrayList<>();
      json.readTree(body).path("prefetch").forEach(i -> images.add(i.asText()));
      return images;
    } catch (IOException | RuntimeException e) {
      log.warn("a heartbeat's answer that is not JSON: {}", Tools.firstLine(e.toString()));
      return List.of();
    }
  }

  public void start() {
    timers.execute(this::beat);
  }

  public void close() {
    closed = true;
    fence.close();
  }

  public boolean registered() {
    return registered;
  }

  private void beat() {
    if (closed) {
      return;
    }
    Duration next = paced;
    try {
      if (!registered) {
        register();
      } else {
        // The images go along only when they changed since the controller last took them.
        HeldImages.Report held = images.report();
        boolean news = held.version() != imagesSaid;
        long sentAt = controllerClock.localMillis();
        HttpResponse<String> answer =
            controller.exchange(
                "PUT",
                "/v1/workers/" + config.workerName() + "/heartbeat",
                news ? Map.of("images", held.images(), "pulls", held.pulls()) : null);
        int status = answer.statusCode();
        if (status < 300) {
          answer
              .headers()
              .firstValue(HeartbeatHeaders.CONTROLLER_TIME)
              .ifPresent(t -> controllerClock.heard(t, sentAt, controllerClock.localMillis()));
          // Only a heartbeat taken paces the next: a refusal says nothing of the fleet.
          fence.heard(answer.headers().firstValue(HeartbeatHeaders.FENCE_AFTER));
          Optional<String> asked = answer.headers().firstValue(HeartbeatHeaders.INTERVAL);
          paced = nextBeat(config.heartbeatInterval(), asked, 0);
          next =
              nextBeat(config.heartbeatInterval(), asked, ThreadLocalRandom.current().nextDouble());
          if (news) {
            imagesSaid = held.version();
          }
          if (status == 200) {
            prefetch.accept(asked(answer.body()));
          }
        }
        if (status == 404) {
          log.info("controller does not know worker {}; registering again", config.workerName());
          registered = false;
          register();
        } else if (status >= 300) {
          throw new IOException("heartbeat answered " + status);
        }
      }
      if (failures > 0) {
        log.info("controller at {} takes heartbeats again", controller.url());
      }
      failures = 0;
    } catch (IOException | RuntimeException e) {
      if (failures++ == 0) {
        // Unreachable, or answering that it cannot take it now (a 429 or 503 of a busy or cut-off
        // host).
        log.warn(
            "controller at {} did not take the heartbeat ({}); retrying with back-off",
            controller.url(),
            e.getMessage());
      }
      long backoff = Math.min(MAX_BACKOFF.toMillis(), 1000L << Math.min(failures, 5));
      // Up to the interval the controller paced the fleet to: a busy controller is not asked more
      // often.
      next = Duration.ofMillis(Math.min(backoff, Math.max(paced.toMillis(), 1000)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (!closed) {
      timers.schedule(this::beat, next.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * When to beat next: at the agent's own interval, or at the one the controller paces the fleet to
   * ({@link HeartbeatHeaders#INTERVAL}) when that is longer, less up to a tenth of it by {@code
   * random} (0 to 1), so that agents told at once do not go on beating at once.
   */
  static Duration nextBeat(Duration own, Optional<String> paced, double random) {
    long seconds;
    try {
      seconds = paced.map(Long::parseLong).orElse(0L);
    } catch (NumberFormatException e) {
      return own; // a controller saying something else is not followed
    }
    Duration asked = Duration.ofSeconds(Math.max(0, seconds));
    if (asked.compareTo(own) <= 0) {
      return own;
    }
    Duration spread = asked.minusMillis((long) (random * asked.toMillis() / 10));
    return spread.compareTo(own) < 0 ? own : spread;
  }

  private void register() throws IOException, InterruptedException {
    Map<String, String> labels = new TreeMap<>(config.labels());
    labels.put("rota.dev/worker", config.workerName());
    labels.put("rota.dev/os", System.getProperty("os.name").toLowerCase(Locale.ROOT));
    labels.put("rota.dev/arch", System.getProperty("os.arch").toLowerCase(Locale.ROOT));
    WorkerFacts.Said said = facts.now();
    labels.putAll(said.labels());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", config.workerName());
    body.put("endpoint", endpoint);
    body.put("resources", config.resources());
    body.put("labels", labels);
    body.put("runtimes", config.runtimes());
    body.put("machineId", machineId());
    body.put("notices", said.notices());
    body.put("agentSecret", config.secret());
    if (certificateSha256 != null) {
      body.put("certificateSha256", certificateSha256);
    }
    HeldImages.Report held = images.report();
    body.put("images", held.images());
    int status = controller.send("POST", "/v1/workers", body);
    if (status == 409) {
      throw new IOException(
          "the controller refuses worker "
              + config.workerName()
              + ": another machine holds the name, "
              + "or it pinned another certificate for it (delete the worker to pin this one)");
    }
    if (status != 200 && status != 201) {
      throw new IOException("registration answered " + status);
    }
    registered = true;
    fence.heard(Optional.empty());
    imagesSaid = held.version();
    log.info("registered worker {} at {}", config.workerName(), endpoint);
  }

  /** Stable per machine, so that another machine cannot take over this worker's name unnoticed. */
  private String machineId() {
    try {
      Path id = Path.of("/etc/machine-id");
      if (Files.isReadable(id)) {
        return Files.readString(id).strip() + "/" + config.workerName();
      }
    } catch (IOException e) {
      // fall through
    }
    return System.getProperty("user.name")
        + "@"
        + System.getenv().getOrDefault("HOSTNAME", "localhost")
        + "/"
        + config.workerName();
  }
}
