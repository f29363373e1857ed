package dev.rota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.VmRepository;
import dev.rota.workflows.schedule.ScheduledRun;
import dev.rota.workflows.schedule.ScheduledVmActivities;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code /v1/schedules} on Temporal's test server, which has no Schedules: every bad input a 400
 * naming its field before Temporal is asked, a good one a 501 saying why; and a run's activity
 * making its VM once however often it is tried. The schedules themselves run in {@code ScheduleIT},
 * on the real server.
 */
@MicronautTest(transactional = false)
class ScheduleApiTest {
  @Inject Http http;
  @Inject ScheduledVmActivities runs;
  @Inject VmRepository vms;

  @BeforeEach
  void template() {
    http.post(
        "/v1/templates",
        """
        {"name": "nightly-build", "spec": {"command": ["sleep", "60"]},
         "parameters": [{"name": "branch", "type": "string", "field": "env.BRANCH"},
                        {"name": "cpus", "type": "integer", "field": "resources.cpu", "default": 1}]}""");
  }

  private static final String GOOD =
      "\"name\":\"nightly\",\"template\":\"nightly-build\",\"parameters\":{\"branch\":\"main\"}";

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        GOOD + "|cron|give cron",
        GOOD
            + ",\"cron\":\"0 2 * * *\",\"interval\":\"1h\"|interval|give cron or interval, not both",
        GOOD + ",\"cron\":\"0 2 * *\"|cron|has 4 fields",
        GOOD + ",\"cron\":\"61 2 * * *\"|cron|its minute field, 61, is wrong",
        GOOD + ",\"cron\":\"0 2 * FOO *\"|cron|its month field, FOO, is wrong",
        GOOD
            + ",\"cron\":\"0 5-2 * * *\"|cron|its hour field, 5-2, is wrong: 5-2 ends before it begins",
        GOOD + ",\"cron\":\"*/0 * * * *\"|cron|its minute field, */0, is wrong",
        GOOD + ",\"cron\":\"@sometimes\"|cron|@sometimes is not one of",
        GOOD + ",\"interval\":\"10 minutes\"|interval|must be a duration",
        GOOD + ",\"interval\":\"0s\"|interval|must be a duration",
        GOOD
            + ",\"cron\":\"0 2 * * *\",\"timeZone\":\"Mars/Olympus\"|timeZone|Mars/Olympus is not a time zone",
        GOOD + ",\"interval\":\"1h\",\"jitter\":\"soon\"|jitter|must be a duration",
        GOOD + ",\"interval\":\"1h\",\"overlap\":\"queue\"|overlap|must be one of",
        GOOD + ",\"interval\":\"1h\",\"colour\":\"red\"|colour|is not a field of this request",
        "\"name\":\"nightly\",\"template\":\"nope\",\"interval\":\"1h\"|template|template 'nope' does not exist",
        "\"name\":\"nightly\",\"template\":\"nightly-build\",\"interval\":\"1h\"|parameters.branch|is required by template nightly-build",
        "\"name\":\"nightly\",\"template\":\"nightly-build\",\"interval\":\"1h\",\"parameters\":{\"branch\":\"m\",\"cpus\":\"many\"}|parameters.cpus|must be a whole number",
        "\"name\":\"a-name-longer-than-forty-characters-is-too-long\",\"template\":\"nightly-build\",\"interval\":\"1h\"|name|size must be between 0 and 40",
      })
  void aBadScheduleIsRefusedNamingTheFieldBeforeTemporalIsAsked(
      String fields, String field, String says) {
    Http.Reply refused = http.post("/v1/schedules", "{" + fields + "}");
    assertEquals(400, refused.status(), fields + " -> " + refused);
    assertTrue(refused.detail().startsWith(field + ": " + says), refused.detail());
  }

  @Test
  void aGoodScheduleOnAServerWithoutSchedulesIsA501SayingWhy() {
    Http.Reply unsupported =
        http.post(
            "/v1/schedules",
            "{" + GOOD + ",\"cron\":\"0 2 * * MON-FRI\",\"timeZone\":\"Europe/Berlin\"}");
    assertEquals(501, unsupported.status(), unsupported.toString());
    assertTrue(unsupported.detail().contains("ROTA_DEV_TEMPORAL=cli"), unsupported.detail());
    assertEquals(501, http.get("/v1/schedules/nightly").status());
  }

  @Test
  void aRunTriedAgainFindsTheVmItMadeAndAGoneTemplateFailsForGood() {
    ScheduledRun run = new ScheduledRun("nightly", "nightly-build", Map.of("branch", "dev"));
    runs.dispatch(run, "nightly-20261201-200000");
    long seq = vms.findById("nightly-20261201-200000").orElseThrow().seq();
    runs.dispatch(run, "nightly-20261201-200000");
    assertEquals(
        seq,
        vms.findById("nightly-20261201-200000").orElseThrow().seq(),
        "the same VM, not one made again");
    assertEquals(
        Map.of("BRANCH", "dev"), http.get("/v1/vms/nightly-20261201-200000").map().get("env"));

    ApplicationFailure gone =
        assertThrows(
            ApplicationFailure.class,
            () ->
                runs.dispatch(
                    new ScheduledRun("nightly", "no-such-template", Map.of()),
                    "nightly-20261201-210000"));
    assertTrue(gone.isNonRetryable());
    assertTrue(gone.getOriginalMessage().contains("no-such-template"), gone.getOriginalMessage());
    assertEquals(404, http.get("/v1/vms/nightly-20261201-210000").status());
  }
}
