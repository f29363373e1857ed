package dev.rota.scheduler.term;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.store.ClusterStatusRepository;
import dev.rota.workflows.cluster.ClusterWorkflow;
import dev.rota.workflows.cluster.TermSummary;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * H2 in PostgreSQL mode, migrated by Flyway at start-up, read and written through Micronaut Data.
 */
@MicronautTest
class ClusterStoreTest {
  @Inject DataSource dataSource;
  @Inject TermRecorder recorder;
  @Inject TermObserver observer;
  @Inject ClusterStatusRepository status;

  @Test
  void flywayCreatedTheSchemaAndSeededTheDefaultProfile() throws Exception {
    try (Connection c = dataSource.getConnection();
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT scheduler_profile FROM cluster_settings WHERE id = 'default'")) {
      assertTrue(rs.next());
      assertEquals("optimize-utilization", rs.getString(1));
    }
  }

  @Test
  void recordTermKeepsTheLatestTermAndStartsOverAfterTheWorkflowWasLost() {
    recorder.record(new TermSummary(7, 1_700_000_000_000L, 12, false, null, null));
    var row = status.findById(ClusterWorkflow.WORKFLOW_ID).orElseThrow();
    assertEquals(7, row.term());
    assertEquals(Instant.ofEpochMilli(1_700_000_000_000L), row.lastTermAt());
    assertEquals(12, row.lastTermMillis());

    recorder.record(new TermSummary(1, 1_700_000_100_000L, 3, false, null, null));
    assertEquals(1, status.findById(ClusterWorkflow.WORKFLOW_ID).orElseThrow().term());
  }

  @Test
  void observeReportsTheConfiguredInterval() {
    assertEquals(5_000, observer.observe().intervalMillis());
  }
}
