package dev.rota.host.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.host.StartupException;
import dev.rota.workflows.RotaSearchAttributes;
import io.temporal.common.SearchAttributeKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemporalCliTest {
  @TempDir Path dir;

  @Test
  void aConfiguredCliWinsOverThePath() throws Exception {
    Path configured = executable(dir.resolve("mine/temporal"));
    Path onPath = executable(dir.resolve("bin/temporal"));
    assertEquals(
        Optional.of(configured),
        TemporalCli.find(configured.toString(), onPath.getParent().toString()));
  }

  @Test
  void otherwiseTheFirstExecutableTemporalOnThePath() throws Exception {
    Files.createDirectories(dir.resolve("a"));
    Files.writeString(dir.resolve("a/temporal"), "not executable");
    Path b = executable(dir.resolve("b/temporal"));
    assertEquals(Optional.of(b), TemporalCli.find(null, dir.resolve("a") + ":" + dir.resolve("b")));
    assertEquals(Optional.empty(), TemporalCli.find("  ", dir.resolve("a").toString()));
    assertEquals(Optional.empty(), TemporalCli.find(null, null));
  }

  @Test
  void aConfiguredPathThatIsNoExecutableIsNamed() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> TemporalCli.find(dir.resolve("nothing").toString(), null));
    assertTrue(
        e.getMessage().startsWith("ROTA_TEMPORAL_CLI=" + dir.resolve("nothing")), e.getMessage());
  }

  @Test
  void searchAttributeTypesAreSpelledAsTheCliTakesThem() {
    assertEquals("Keyword", CliTemporalServer.cliType(RotaSearchAttributes.VM_STATUS));
    assertEquals("KeywordList", CliTemporalServer.cliType(SearchAttributeKey.forKeywordList("x")));
    assertEquals("Datetime", CliTemporalServer.cliType(SearchAttributeKey.forOffsetDateTime("x")));
    assertEquals("Int", CliTemporalServer.cliType(SearchAttributeKey.forLong("x")));
  }

  private static Path executable(Path path) throws Exception {
    Files.createDirectories(path.getParent());
    Files.writeString(path, "#!/bin/sh\n");
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    return path;
  }

  @org.junit.jupiter.api.Test
  void aStartThatFailedSaysTheServersLastErrorJsonOrText(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("temporal.log");
    java.nio.file.Files.writeString(
        log,
        "{\"time\":\"2026-12-02T03:44:49Z\",\"level\":\"FATAL\",\"prefix\":\"echo\","
            + "\"message\":\"listen tcp 127.0.0.1:27311: bind: address already in use\"}\n");
    assertEquals(
        java.util.Optional.of("listen tcp 127.0.0.1:27311: bind: address already in use"),
        CliTemporalServer.lastError(log));
    java.nio.file.Files.writeString(log, "time=x level=ERROR msg=\"no room\"\n");
    assertEquals(
        java.util.Optional.of("time=x level=ERROR msg=\"no room\""),
        CliTemporalServer.lastError(log));
    java.nio.file.Files.writeString(log, "{\"level\":\"WARN\",\"message\":\"slow\"}\n");
    assertEquals(java.util.Optional.empty(), CliTemporalServer.lastError(log));
  }
}
