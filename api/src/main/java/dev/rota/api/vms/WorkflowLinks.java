package dev.rota.api.vms;

import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;

/**
 * Links into the Temporal Web UI, where a VM's life is told step by step: the UI at {@code
 * rota.temporal.ui-url} ({@code ROTA_TEMPORAL_UI_URL}), else the one the host runs itself (dev
 * mode's); none when neither is there.
 */
@Singleton
public class WorkflowLinks {
  private final Optional<String> ui;
  private final String namespace;

  public WorkflowLinks(TemporalUiSettings settings, List<TemporalUiSource> running) {
    String configured = settings.uiUrl();
    this.namespace = settings.namespace();
    this.ui =
        configured != null && !configured.isBlank()
            ? Optional.of(configured.strip().replaceAll("/+$", ""))
            : running.stream().map(TemporalUiSource::webUi).flatMap(Optional::stream).findFirst();
  }

  /** The VM's workflow in the UI, or null when there is no UI to link to. */
  public String vm(String name) {
    return ui.map(
            u ->
                u
                    + "/namespaces/"
                    + namespace
                    + "/workflows/"
                    + java.net.URLEncoder.encode(
                        "vm-" + name, java.nio.charset.StandardCharsets.UTF_8))
        .orElse(null);
  }
}
