package dev.rota.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rota.store.StoreFixtures;
import dev.rota.store.VmRow;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AskedDeletionsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

  private static VmRow replica(String name, Instant created) {
    return VmRow.submitted(name, 1, StoreFixtures.sleeper(1), "waiting", created);
  }

  @Test
  void aReplicaIsAskedOnceAMinuteAndAReplicaMadeAnewUnderItsNameIsAnother() {
    AskedDeletions asked = new AskedDeletions();
    VmRow web0 = replica("web-0", T0);
    VmRow web1 = replica("web-1", T0);
    Duration again = AskedDeletions.AGAIN;
    // {when, which, due}
    Object[][] table = {
      {T0, web0, true},
      {T0.plusSeconds(1), web0, false},
      {T0.plusSeconds(1), web1, true},
      {T0.plus(again).minusSeconds(1), web0, false},
      {T0.plus(again).plusSeconds(1), web0, true},
      {T0.plus(again).plusSeconds(2), web0, false},
      {T0.plus(again).plusSeconds(2), replica("web-0", T0.plusSeconds(90)), true},
      {T0.plus(again.multipliedBy(3)), web1, true},
    };
    for (Object[] row : table) {
      VmRow vm = (VmRow) row[1];
      Instant now = (Instant) row[0];
      assertEquals(
          row[2], asked.due(vm, now), vm.name() + " created " + vm.createdAt() + " at " + now);
      if (asked.due(vm, now)) {
        asked.asked(vm, now);
      }
    }
    // A request that failed was never asked: the next pass asks again at once.
    VmRow web2 = replica("web-2", T0);
    assertEquals(true, asked.due(web2, T0));
    assertEquals(true, asked.due(web2, T0.plusSeconds(1)));
    // Its workflow started anew by this host, without the request: asked again at once.
    asked.asked(web2, T0.plusSeconds(2));
    asked.forget(web2);
    assertEquals(true, asked.due(web2, T0.plusSeconds(3)));
  }
}
