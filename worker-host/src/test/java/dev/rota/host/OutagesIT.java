package dev.rota.host;

import static dev.rota.testing.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Production mode (a {@code rota.jar} host, two agents, PostgreSQL and the real Temporal server)
 * while users submit VMs from eight clients without pause, and first the database, then Temporal,
 * goes away for 20 s and comes back: while the database is away the API answers 503 problems (never
 * a 500, never a dropped connection) and stores nothing it refused; while Temporal is away it goes
 * on taking submissions, which need only the database (their workflows are started once it is
 * back); everything it acknowledged, before, during or after, runs exactly once; and the scheduler
 * takes up the work by itself, with nobody restarting anything.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OutagesIT {
  /**
   * How long each service stays away: twice what a request waits for it (5 s), so that the API must
   * answer.
   */
  private static final Duration OUTAGE = Duration.ofSeconds(10);

  private static final int CLIENTS = 8;
  private static final int ACKS_AROUND_OUTAGE = 40;

  private static RealServices.Postgres postgres;
  private static ProductionStack stack;
  private static RotaClient api;

  @BeforeAll
  static void start() throws Exception {
    postgres = RealServices.Postgres.start();
    // An idle interval of 2 s: a scheduler without terms for 5 s (2 s and three intervals) is
    // degraded,
    // which a 10 s outage of Temporal shows.
    stack =
        ProductionStack.start(
            ProductionStack.folder("outages"),
            1,
            2,
            Map.of("ROTA_SCHEDULER_INTERVAL", "1s", "ROTA_SCHEDULER_IDLE_INTERVAL", "2s"),
            postgres.url());
    api = stack.admin(0);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (stack != null) {
        stack.close();
      }
    } finally {
      Vms.endProcesses(700_000, 800_000);
      if (postgres != null) {
        postgres.close();
      }
    }
  }

  @Test
  @Order(1)
  void theDatabaseStoppedDuringABurst() throws Exception {
    Set<String> refused =
        outage(
            "db",
            700_000,
            true,
            postgres::halt,
            postgres::resume,
            () -> {
              RotaClient.Reply listed = api.api("GET", "/v1/vms", null);
              assertEquals(503, listed.status(), "a read needs the database too: " + listed.body());
              assertTrue(listed.problem(), listed.contentType() + " " + listed.body());
            });
    for (String vm : refused) {
      assertEquals(
          404,
          api.api("GET", "/v1/vms/" + vm, null).status(),
          vm + " was refused (503), and is not stored");
    }
  }

  @Test
  @Order(2)
  void theTemporalServerKilledDuringABurstAndRestartedOnItsState() throws Exception {
    Set<String> refused =
        outage(
            "temporal",
            750_000,
            false,
            stack.temporal::halt,
            stack.temporal::resume,
            () -> {
              RotaClient.Reply listed = api.api("GET", "/v1/vms?limit=1", null);
              assertEquals(
                  200,
                  listed.status(),
                  "reads come from the database, which is up: " + listed.body());
              // Without Temporal no term runs: the cluster says so, with why, well within the
              // outage.
              eventually(
                  "the scheduler reported degraded",
                  Duration.ofSeconds(8),
                  () -> {
                    Map<String, Object> cluster = api.api("GET", "/v1/cluster", null).map();
                    return "degraded".equals(cluster.get("scheduler"))
                        && String.valueOf(cluster.get("schedulerMessage"))
                            .startsWith("no term for ");
                  });
            });
    assertEquals(Set.of(), refused, "a submission needs the database alone");
    for (int i = 0; i < stack.hostCount(); i++) {
      String log = stack.host(i).output();
      int poller = log.indexOf("Failure in poller thread");
      assertEquals(
          "",
          poller < 0 ? "" : log.substring(poller, Math.min(log.length(), poller + 800)),
          "Temporal away is the outage watch's line, not every poller's stack trace");
      assertTrue(log.contains("Temporal does not answer"), "which says it");
    }
    eventually(
        "the first outage's VMs still running",
        () ->
            Vms.running(api).stream().filter(vm -> vm.startsWith("db-")).count()
                >= ACKS_AROUND_OUTAGE * 2);
  }

  /**
   * Runs the load, takes the service away once {@link #ACKS_AROUND_OUTAGE} VMs were acknowledged,
   * runs {@code whileAway} and holds the outage for {@link #OUTAGE}, brings the service back and
   * keeps the load on until as many more were acknowledged; then checks every answer and every
   * acknowledged VM. Returns the VMs refused with a 503; {@code refusesWhileAway} says whether
   * there must be some.
   */
  private static Set<String> outage(
      String prefix,
      int firstSleep,
      boolean refusesWhileAway,
      Runnable takeAway,
      Runnable bringBack,
      Runnable whileAway)
      throws Exception {
    long away;
    long back;
    Instant backAt;
    Duration firstTerm;
    Duration firstTermBegan;
    Vms.Load load = Vms.load(api, CLIENTS, prefix, firstSleep);
    try {
      load.awaitMoreAcked(ACKS_AROUND_OUTAGE);
      away = System.nanoTime();
      takeAway.run();
      whileAway.run();
      hold(away);
      bringBack.run();
      back = System.nanoTime();
      backAt = Instant.now();
      Instant[] term = firstTermBeganAfter(backAt);
      firstTermBegan = Duration.between(backAt, term[0]);
      firstTerm = Duration.between(backAt, term[1]);
      load.awaitMoreAcked(ACKS_AROUND_OUTAGE);
    } finally {
      load.close();
    }
    assertTrue(load.failures.isEmpty(), "every request was answered: " + load.failures);
    List<Vms.Load.Answer> answers = List.copyOf(load.answers);
    for (Vms.Load.Answer a : answers) {
      assertTrue(
          a.reply().status() == 201 || (a.reply().status() == 503 && a.reply().problem()),
          a.vm()
              + ": acknowledged, or a 503 problem: "
              + a.reply().status()
              + " "
              + a.reply().body());
    }
    List<Vms.Load.Answer> during = load.between(away, back);
    if (refusesWhileAway) {
      assertTrue(
          during.stream().anyMatch(a -> a.reply().status() == 503),
          "the outage was answered with 503s: " + during.size());
    } else {
      assertTrue(
          during.stream().anyMatch(a -> a.reply().status() == 201),
          "submissions were taken during the outage: " + during.size());
    }
    Set<String> refused =
        answers.stream()
            .filter(a -> a.reply().status() == 503)
            .map(Vms.Load.Answer::vm)
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> acked = Set.copyOf(load.acked);
    assertTrue(
        load.between(back, Long.MAX_VALUE).stream().anyMatch(a -> a.reply().status() == 201),
        "acknowledged again once back");

    try {
      eventually(
          "every acknowledged VM running, the scheduler having resumed by itself",
          JarProcess.PATIENCE,
          () -> Vms.running(api).containsAll(acked));
    } catch (AssertionError e) {
      Set<String> notRunning = new TreeSet<>(acked);
      notRunning.removeAll(Vms.running(api));
      throw new AssertionError(
          e.getMessage()
              + "; not running: "
              + notRunning.stream()
                  .limit(10)
                  .map(vm -> vm + " " + api.api("GET", "/v1/vms/" + vm, null).body())
                  .toList(),
          e);
    }
    Vms.onlyOneProcessEachAndPlacedOnce(api, acked);
    eventually(
        "both workers ready again",
        () ->
            api.items("/v1/workers").stream().filter(w -> "ready".equals(w.get("health"))).count()
                == 2);
    String figures =
        String.format(
            "%s outage of %d s: %d answers (%d during it), %d acknowledged, %d refused with 503; "
                + "all acknowledged running once; the first term to begin once it was back began %.1f s and ended %.1f s after it "
                + "(scheduler interval 1 s)%n",
            prefix,
            OUTAGE.toSeconds(),
            answers.size(),
            during.size(),
            acked.size(),
            refused.size(),
            firstTermBegan.toMillis() / 1000.0,
            firstTerm.toMillis() / 1000.0);
    System.out.print(figures);
    java.nio.file.Files.writeString(
        java.nio.file.Path.of("target", "outages.txt"),
        figures,
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    return refused;
  }

  /**
   * When the first term to begin after {@code since} began and ended, as the API tells it (its
   * start and duration): a term that takes up the backlog of an outage begins soon and may take a
   * while. A term under way when the service went away, which ends once it is back, is not it.
   */
  private static Instant[] firstTermBeganAfter(Instant since) {
    Instant[] term = new Instant[2];
    eventually(
        "a term began after " + since,
        () -> {
          Map<String, Object> cluster = api.api("GET", "/v1/cluster", null).map();
          if (cluster.get("lastTermAt") == null) {
            return false;
          }
          term[0] = Instant.parse((String) cluster.get("lastTermAt"));
          term[1] = Instant.parse((String) cluster.get("lastTermEndedAt"));
          return term[0].isAfter(since);
        });
    return term;
  }

  /** The outage itself: the service stays away this long, whatever the load does meanwhile. */
  private static void hold(long since) throws InterruptedException {
    long left = OUTAGE.toNanos() - (System.nanoTime() - since);
    if (left > 0) {
      Thread.sleep(left / 1_000_000);
    }
  }
}
