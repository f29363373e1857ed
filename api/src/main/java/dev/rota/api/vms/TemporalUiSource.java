package dev.rota.api.vms;

import java.util.Optional;

/** A Temporal Web UI the host itself runs (dev mode's CLI server), where its links point. */
public interface TemporalUiSource {
  /** The UI's base URL, when there is one. */
  Optional<String> webUi();
}
