package dev.rota.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ControllerLinkTest {
  private static final Duration OWN = Duration.ofSeconds(5);

  @Test
  void anAgentBeatsAtItsOwnIntervalUnlessTheControllerPacesTheFleetSlower() {
    assertEquals(
        OWN, ControllerLink.nextBeat(OWN, Optional.empty(), 0.5), "a controller that says nothing");
    assertEquals(
        OWN,
        ControllerLink.nextBeat(OWN, Optional.of("1"), 0.5),
        "a small fleet: its own, the longer");
    assertEquals(Duration.ofSeconds(10), ControllerLink.nextBeat(OWN, Optional.of("10"), 0));
    assertEquals(
        Duration.ofMillis(9500),
        ControllerLink.nextBeat(OWN, Optional.of("10"), 0.5),
        "less up to a tenth, so that agents told at once spread out");
    assertEquals(
        OWN, ControllerLink.nextBeat(OWN, Optional.of("5"), 0.99), "never sooner than its own");
    assertEquals(
        OWN,
        ControllerLink.nextBeat(OWN, Optional.of("soon"), 0),
        "nothing it can read is followed");
    assertEquals(OWN, ControllerLink.nextBeat(OWN, Optional.of("-20"), 0));
  }
}
