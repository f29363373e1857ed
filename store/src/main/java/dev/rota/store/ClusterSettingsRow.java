package dev.rota.store;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.Version;

/** The cluster-wide settings users change through the API; one row, id {@code default}. */
@MappedEntity("cluster_settings")
public record ClusterSettingsRow(@Id String id, String schedulerProfile, @Version long version) {
  public static final String ID = "default";
}
