package dev.rota.scheduler.term;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.core.model.LabelConstraint;
import dev.rota.core.scheduling.VmSnapshot;
import dev.rota.store.StoreFixtures;
import dev.rota.store.VmRepository;
import dev.rota.store.VmRow;
import dev.rota.store.VmTemplate;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a term reads of a VM's row: its priority, its constraints, whether it was evicted. */
@MicronautTest(transactional = false)
class TermSnapshotReaderTest {
  @Inject TermSnapshotReader reader;
  @Inject VmRepository vms;

  private VmSnapshot read(String name) {
    Instant now = Instant.now();
    return reader.read(now, now).vms().stream()
        .filter(v -> v.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aVmsPriorityAndConstraintsReachTheTerm() {
    List<LabelConstraint> constraints =
        List.of(
            new LabelConstraint("zone", "in", List.of("a", "b")),
            new LabelConstraint("kernel", "version", List.of(">= 6.1")));
    VmTemplate spec =
        StoreFixtures.spec(List.of("sleep", "60"), Map.of("cpu", 1L), "Never", 70, constraints);
    vms.save(VmRow.submitted("picky", vms.nextSeq(), spec, "waiting", StoreFixtures.T0));
    VmSnapshot picky = read("picky");
    assertEquals(70, picky.priority());
    assertEquals(constraints, picky.constraints());
    assertEquals(constraints, picky.asPending().constraints());
    assertFalse(picky.evicted());

    StoreFixtures.submitted(vms, "plain", 1, StoreFixtures.T0);
    assertEquals(50, read("plain").priority(), "the default");
    assertEquals(List.of(), read("plain").constraints());
  }

  @Test
  void aVmEvictedAtItsGenerationIsReadAsEvicted() {
    VmRow running = vms.save(StoreFixtures.vm(vms, "evictee", "running", "w1"));
    assertFalse(read("evictee").evicted());
    assertEquals(1, vms.evicted("evictee", running.seq(), 0));
    assertTrue(read("evictee").evicted(), "its room is on its way out");
  }
}
