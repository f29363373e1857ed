package dev.rota.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;
import java.time.Instant;
import java.util.List;

/** Namespaces, with their quotas and what their VMs hold. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface NamespaceRepository extends CrudRepository<NamespaceRow, String> {
  /** Every namespace, by name. */
  List<NamespaceRow> listOrderByName();

  /**
   * Counts what VMs stored into the namespace hold, if every limit of its quota leaves room for it
   * (a limit already passed, by a quota lowered, takes nothing more of its kind); 0 when one does
   * not, or there is no such namespace. The row's lock keeps two hosts' submissions from both
   * taking the last room.
   */
  @Query(
      """
      UPDATE namespaces SET used_cpu = used_cpu + :cpu, used_memory = used_memory + :memory,
        used_vms = used_vms + :vms, used_disk_gi = used_disk_gi + :diskGi
      WHERE name = :name
        AND (quota_cpu IS NULL OR :cpu <= 0 OR used_cpu + :cpu <= quota_cpu)
        AND (quota_memory IS NULL OR :memory <= 0 OR used_memory + :memory <= quota_memory)
        AND (quota_vms IS NULL OR :vms <= 0 OR used_vms + :vms <= quota_vms)
        AND (quota_disk_gi IS NULL OR :diskGi <= 0 OR used_disk_gi + :diskGi <= quota_disk_gi)""")
  int charge(String name, long cpu, long memory, long vms, long diskGi);

  /** Takes what removed VMs held off the namespace's count. */
  @Query(
      """
      UPDATE namespaces SET used_cpu = used_cpu - :cpu, used_memory = used_memory - :memory,
        used_vms = used_vms - :vms, used_disk_gi = used_disk_gi - :diskGi
      WHERE name = :name""")
  int release(String name, long cpu, long memory, long vms, long diskGi);

  /** A namespace's description and quota anew; what it holds is left as counted. */
  @Query(
      """
      UPDATE namespaces SET description = :description, quota_cpu = :quotaCpu,
        quota_memory = :quotaMemory, quota_vms = :quotaVms, quota_disk_gi = :quotaDiskGi,
        updated_at = :updatedAt
      WHERE name = :name""")
  int describe(
      String name,
      @io.micronaut.core.annotation.Nullable String description,
      @io.micronaut.core.annotation.Nullable Long quotaCpu,
      @io.micronaut.core.annotation.Nullable Long quotaMemory,
      @io.micronaut.core.annotation.Nullable Long quotaVms,
      @io.micronaut.core.annotation.Nullable Long quotaDiskGi,
      Instant updatedAt);

  /** Removes the namespace if no VM counts against it; 0 if one does, or there is none. */
  @Query("DELETE FROM namespaces WHERE name = :name AND used_vms = 0")
  int deleteEmpty(String name);
}
