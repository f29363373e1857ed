package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An independent fuzzer against the API as its document describes it: Schemathesis (from PyPI, by
 * {@code .ci/schemathesis}) reads {@code /openapi.yml} from a dev host with auth on, synthetic
 * agents (the fuzzer's VMs run nothing real) and the real Temporal server when its CLI can be had,
 * and runs every phase: examples, coverage, fuzzing and the stateful phase, which follows the
 * document's links from a create to the calls on what it made. Every check is on, with Rota's own:
 * a write answered 4xx changed nothing stored ({@code src/test/schemathesis/rota_hooks.py}). Any
 * finding fails the test with Schemathesis's report.
 *
 * <p>{@code -Drota.fuzz.examples} (default 25 per operation) and {@code -Drota.fuzz.seed} (default
 * fixed, so a CI failure replays) tune it; README "Fuzzing the API" runs it by hand.
 */
class ApiFuzzIT {
  private static final String TOKEN = "fuzz-admin-" + "0123456789abcdef0123";

  @TempDir Path work;

  @Test
  void schemathesisFindsNothingAgainstTheApisOwnDocument() throws Exception {
    Path st = RealServices.schemathesis();
    Path config = RealServices.root().resolve("worker-host/src/test/schemathesis");
    int http = FreePorts.next();
    Map<String, String> env = JarProcess.guardedDev(http, work.resolve("data"), TOKEN);
    // One token sends all of it, faster than a user's rate: the bound is ManyClientsIT's to test.
    env.put("ROTA_API_RATE_LIMIT", "1000");
    env.put("ROTA_API_RATE_BURST", "1000");
    // The real Temporal server when the CLI can be had (as in CI), else the embedded one.
    RealServices.installedTemporalCli()
        .ifPresentOrElse(
            cli -> {
              env.put("ROTA_DEV_TEMPORAL", "cli");
              env.put("ROTA_TEMPORAL_CLI", cli.toString());
            },
            () -> env.put("ROTA_DEV_TEMPORAL", "embedded"));
    try (JarProcess host = JarProcess.dev("fuzzed", env, work)) {
      host.start().awaitOutput("  Data ");
      String url = "http://127.0.0.1:" + http;
      List<String> command =
          new ArrayList<>(
              List.of(
                  st.toString(),
                  "--config-file",
                  config.resolve("schemathesis.toml").toString(),
                  "--no-color",
                  "run",
                  url + "/openapi.yml",
                  "-H",
                  "Authorization: Bearer " + TOKEN,
                  "--max-examples",
                  System.getProperty("rota.fuzz.examples", "25"),
                  "--seed",
                  System.getProperty("rota.fuzz.seed", "20261123"),
                  "--report",
                  "junit",
                  "--report-dir",
                  work.resolve("report").toString()));
      ProcessBuilder fuzz =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(work.resolve("schemathesis.log").toFile());
      fuzz.environment().put("PYTHONPATH", config.toString());
      fuzz.environment().put("ROTA_FUZZ_URL", url);
      fuzz.environment().put("ROTA_FUZZ_TOKEN", TOKEN);
      Process run = fuzz.start();
      if (!run.waitFor(15, TimeUnit.MINUTES)) {
        run.destroyForcibly();
      }
      String report = Files.readString(work.resolve("schemathesis.log"));
      Files.copy(
          work.resolve("schemathesis.log"),
          Path.of("target", "schemathesis.log"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      assertEquals(
          0,
          run.exitValue(),
          "Schemathesis found something (target/schemathesis.log):\n" + tail(report));
      String log = host.output();
      assertEquals(
          -1, log.indexOf("level=ERROR"), "the host logged an error while fuzzed:\n" + log);
    }
  }

  private static String tail(String text) {
    return text.length() <= 20_000 ? text : text.substring(text.length() - 20_000);
  }
}
