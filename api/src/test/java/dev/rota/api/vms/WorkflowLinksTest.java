package dev.rota.api.vms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A VM's link into the Temporal UI: the configured UI first, the host's own next, else none. */
class WorkflowLinksTest {
  private static final TemporalUiSource DEV = () -> Optional.of("http://127.0.0.1:8233");

  @Test
  void theConfiguredUiWinsThenTheHostsOwnAndWithoutEitherThereIsNoLink() {
    assertEquals(
        "https://temporal.example.com/namespaces/rota/workflows/vm-web-1",
        new WorkflowLinks(
                new TemporalUiSettings("https://temporal.example.com/", "rota"), List.of(DEV))
            .vm("web-1"));
    assertEquals(
        "http://127.0.0.1:8233/namespaces/default/workflows/vm-web-1",
        new WorkflowLinks(new TemporalUiSettings("", "default"), List.of(DEV)).vm("web-1"));
    assertNull(
        new WorkflowLinks(new TemporalUiSettings("", "default"), List.of(Optional::empty))
            .vm("web-1"));
    assertNull(new WorkflowLinks(new TemporalUiSettings(null, "default"), List.of()).vm("web-1"));
  }
}
