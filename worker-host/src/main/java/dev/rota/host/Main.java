package dev.rota.host;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/** {@code rota.jar [dev]}: a production host, or dev mode with everything in one process. */
public final class Main {
  private static final Logger log = LoggerFactory.getLogger(Main.class);

  private Main() {}

  public static void main(String[] args) {
    Optional<String> badLogFormat = LogEncoder.problem(System::getenv);
    if (badLogFormat.isPresent()) {
      System.err.println("rota: cannot start: " + badLogFormat.get());
      System.exit(1);
      return;
    }
    HostMode mode;
    boolean stopVms = false;
    if (args.length == 0 || (args.length == 1 && args[0].equals("server"))) {
      mode = HostMode.PRODUCTION;
    } else if (args.length == 1 && args[0].equals("dev")) {
      mode = HostMode.DEV;
    } else if (args.length == 2 && args[0].equals("dev") && args[1].equals("--stop-vms")) {
      mode = HostMode.DEV;
      stopVms = true;
    } else if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      usage(System.out);
      return;
    } else {
      System.err.println(
          "rota: unknown arguments "
              + String.join(" ", args)
              + "; run 'rota.jar dev' or 'rota.jar server'");
      System.exit(2);
      return;
    }

    HeapGiveBack.apply();
    // Said at once: a first start builds and fetches for a while before anything else is printed.
    System.err.println(
        mode == HostMode.DEV
            ? "rota: starting dev mode: Temporal, the database, the API and the agents;"
                + " the banner follows once all are up"
            : "rota: starting a host: the database, Temporal, the API;"
                + " the banner follows once all are up");
    RotaHost host;
    try {
      host = RotaHost.start(mode, Map.of());
    } catch (StartupException e) {
      log.debug("start-up failed", e);
      System.err.println("rota: cannot start: " + e.getMessage());
      System.exit(1);
      return;
    }
    if (stopVms) {
      int code = DevStops.stopEveryVm(host, System.err);
      host.close();
      System.exit(code);
      return;
    }
    System.out.print(Banner.of(host));
    System.out.flush();
    if (mode == HostMode.DEV) {
      host.dataDir()
          .flatMap(
              data ->
                  DevLeftovers.ofOtherDataFolders(
                      dev.rota.agent.tasks.TaggedProcesses.runningTaskFolders(), data))
          .ifPresent(System.err::println);
    }

    CountDownLatch stopped = new CountDownLatch(1);
    // A signal stops the host, then exits, which runs the shutdown hook: the stop is done once.
    java.util.concurrent.atomic.AtomicBoolean stopping =
        new java.util.concurrent.atomic.AtomicBoolean();
    Runnable stop =
        () -> {
          if (!stopping.compareAndSet(false, true)) {
            return;
          }
          try {
            List<String> left = DevLeftovers.running(host.devAgents());
            host.close();
            host.dataDir()
                .flatMap(data -> DevLeftovers.leftRunning(left, data))
                .ifPresent(System.err::println);
          } catch (RuntimeException e) {
            log.warn("error while stopping", e);
          } finally {
            stopped.countDown();
          }
        };
    // SIGTERM and SIGINT mean a clean stop with status 0; a JVM left to its default would exit 143.
    for (String signal : new String[] {"TERM", "INT"}) {
      Signal.handle(
          new Signal(signal),
          s ->
              new Thread(
                      () -> {
                        stop.run();
                        System.exit(0);
                      },
                      "rota-stop")
                  .start());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "rota-shutdown-hook"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void usage(PrintStream out) {
    out.println("usage: java -jar rota.jar [dev [--stop-vms]|server]");
    out.println(
        "  dev   everything in one process: embedded Temporal, H2 in ROTA_DATA_DIR, API on 127.0.0.1");
    out.println(
        "  dev --stop-vms   stops every VM dev mode left running in ROTA_DATA_DIR, then ends");
    out.println(
        "  server (or no argument) a production host: TEMPORAL_ADDRESS, DATASOURCES_DEFAULT_URL, auth on");
  }
}
