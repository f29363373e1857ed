package dev.rota.agentapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class RotaBuildTest {

  @Test
  void theBuildWritesItsVersionAndCommitIntoTheJar() {
    RotaBuild build = RotaBuild.current();
    assertNotEquals("unknown", build.version());
    assertTrue(build.version().matches("\\d+\\.\\d+\\.\\d+.*"), build.version());
    // The suite runs in a git checkout, so the commit is known.
    assertTrue(build.commit() != null && build.commit().matches("[0-9a-f]{7,}"), build.toString());
    assertEquals(build.version() + "+" + build.commit(), build.toString());
  }

  @Test
  void placeholdersLeftByABuildOutsideGitAreUnknownNotShown() {
    Properties p = new Properties();
    p.setProperty("version", "0.2.0");
    p.setProperty("commit", "${git.commit.id.abbrev}");
    RotaBuild build = RotaBuild.of(p);
    assertNull(build.commit());
    assertEquals("0.2.0", build.toString());
    assertEquals("unknown", RotaBuild.of(new Properties()).version());
  }

  @Test
  void aUserAgentNamesTheBuildAndOnlyAWellFormedOneIsRead() {
    RotaBuild build = new RotaBuild("0.2.0", "1a2b3c4");
    assertEquals("rota-agent/0.2.0+1a2b3c4", build.userAgent("rota-agent"));
    assertEquals(
        java.util.Optional.of("0.2.0+1a2b3c4"),
        RotaBuild.fromUserAgent("rota-agent", build.userAgent("rota-agent") + " (linux)"));
    assertTrue(RotaBuild.fromUserAgent("rota-agent", "Java-http-client/17").isEmpty());
    assertTrue(RotaBuild.fromUserAgent("rota-agent", null).isEmpty());
    assertTrue(RotaBuild.fromUserAgent("rota-agent", "rota-agent/<script>").isEmpty());
    assertTrue(RotaBuild.fromUserAgent("rota-agent", "rota-agent/" + "9".repeat(129)).isEmpty());
  }
}
