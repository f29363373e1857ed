package dev.rota.agent.images;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FetchProgressTest {
  private static final long MIB = 1024 * 1024;
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aKnownSizeIsToldAtEachTenthOnceHoweverSmallTheReads() {
    FetchProgress progress = new FetchProgress(2048 * MIB);
    List<String> told = new ArrayList<>();
    for (long copied = 64 * 1024; copied <= 2048 * MIB; copied += 64 * 1024) {
      progress.after(copied, 0).ifPresent(told::add);
    }
    assertEquals(11, told.size(), told.toString());
    assertEquals("pulling 0% of 2048 MiB", told.get(0));
    assertEquals("pulling 40% of 2048 MiB", told.get(4));
    assertEquals("pulling 100% of 2048 MiB", told.get(10));
  }

  @Test
  void anUnknownSizeIsToldAtMostEveryFiveSeconds() {
    FetchProgress progress = new FetchProgress(-1);
    assertEquals(Optional.of("pulling 512 bytes"), progress.after(512, 0));
    assertEquals(Optional.empty(), progress.after(10 * MIB, 4 * SECOND));
    assertEquals(Optional.of("pulling 20 MiB"), progress.after(20 * MIB, 5 * SECOND));
    assertEquals(Optional.empty(), progress.after(30 * MIB, 9 * SECOND));
    assertEquals(Optional.of("pulling 40 MiB"), progress.after(40 * MIB, 10 * SECOND));
  }
}
