package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Data volumes, and which VM mounts each. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface VolumeRepository extends CrudRepository<VolumeRow, String> {
  /**
   * Where it is held now: its VM's disk's worker while a VM mounts it and has placed it, or the
   * worker it is being copied from while that VM moves.
   */
  String HELD =
      """
      SELECT vol.name, vol.seq, vol.size_gi,
             COALESCE(vm.disk_on, vm.disk_from, vol.worker) AS worker, vol.vm, vol.created_at
      FROM volumes vol LEFT JOIN vms vm ON vm.name = vol.vm""";

  @Query(
      value =
          "INSERT INTO volumes (name, seq, size_gi, worker, vm, created_at)"
              + " VALUES (:name, nextval('volume_seq'), :sizeGi, :worker, NULL, :createdAt)")
  void create(
      String name,
      int sizeGi,
      @io.micronaut.core.annotation.Nullable String worker,
      Instant createdAt);

  /** The volume, {@code worker} being where it is held now. */
  @Query(HELD + " WHERE vol.name = :name")
  Optional<VolumeRow> findHeld(String name);

  /** Every volume by name, each {@code worker} being where it is held now. */
  @Query(HELD + " ORDER BY vol.name")
  List<VolumeRow> listHeld();

  /** The volumes named, each {@code worker} being where it is held now. */
  @Query(HELD + " WHERE vol.name IN (:names)")
  List<VolumeRow> findHeldByNameInList(Collection<String> names);

  /** The volumes held on {@code workers} now, by name. */
  @Query(
      HELD
          + " WHERE COALESCE(vm.disk_on, vm.disk_from, vol.worker) IN (:workers) ORDER BY vol.name")
  List<VolumeRow> findHeldOn(Collection<String> workers);

  /** Mounts the volumes on {@code vm}: how many were free to be (the caller wants all). */
  @Query("UPDATE volumes SET vm = :vm WHERE name IN (:names) AND vm IS NULL")
  int attach(String vm, Collection<String> names);

  /**
   * {@code vms} are deleted: the volumes of each stay where its disk was (or where they were, had
   * it none yet), mounted by nothing.
   */
  @Query(
      "UPDATE volumes SET worker = COALESCE((SELECT COALESCE(disk_on, disk_from) FROM vms"
          + " WHERE name = volumes.vm), worker), vm = NULL WHERE vm IN (:vms)")
  int detachAll(java.util.Collection<String> vms);

  /** Deletes the volume while no VM mounts it: 0 if one does, or it is not there. */
  @Query("DELETE FROM volumes WHERE name = :name AND vm IS NULL")
  int deleteIfFree(String name);
}
