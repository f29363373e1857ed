package dev.rota.api.plans;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rota.api.vms.VmView;
import dev.rota.api.vmsets.VmSetView;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * A dry run's answer ({@code ?dryRun=true}): what the request would do now, nothing written.
 *
 * @param kind {@code vm} or {@code vm-set}
 * @param action {@code create}, {@code update} or {@code unchanged}
 * @param changes the fields the request would change, as the API shows them; none for a create
 * @param replicas what a set's next pass would make and remove, and which replicas its rollout
 *     would replace; null for a VM
 * @param placements where each VM it would make would go, as the next term would place it now
 * @param vm the VM as it would be; null for a set
 * @param set the set as it would be; null for a VM
 */
@Serdeable
@JsonInclude(JsonInclude.Include.ALWAYS)
@Schema(description = "What a request would do, from its dry run: nothing was written")
public record PlanView(
    String kind,
    String name,
    String action,
    List<FieldChange> changes,
    @Nullable Replicas replicas,
    List<Placement> placements,
    @Nullable VmView vm,
    @Nullable VmSetView set) {

  /** A field as it is and as it would be, named as the API shows it ({@code template.command}). */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record FieldChange(String field, @Nullable Object from, @Nullable Object to) {}

  /**
   * @param make the replicas the set's next pass would make
   * @param remove the replicas its next pass would remove
   * @param replace every replica of another template, replaced by the rollout a few at a time
   */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Replicas(List<String> make, List<String> remove, List<String> replace) {}

  /**
   * @param worker where it would go now; null when it would wait
   * @param why what made that worker the choice beyond room, or null
   * @param waiting why it would wait; null when it would be placed
   */
  @Serdeable
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Placement(
      String vm, @Nullable String worker, @Nullable String why, @Nullable String waiting) {
    static Placement of(String vm, dev.rota.scheduler.term.PlacementPreview.Outcome outcome) {
      return new Placement(vm, outcome.worker(), outcome.why(), outcome.waiting());
    }
  }
}
