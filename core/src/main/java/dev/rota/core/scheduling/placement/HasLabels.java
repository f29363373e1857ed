package dev.rota.core.scheduling.placement;

import dev.rota.core.scheduling.Candidate;
import dev.rota.core.scheduling.PendingVm;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** A VM goes only to a worker that carries every label it asks for. */
public final class HasLabels implements FeasibilityCheck {
  @Override
  public boolean admits(Candidate worker, PendingVm vm, Tally tally) {
    boolean all = true;
    for (Map.Entry<String, String> label : vm.labels().entrySet()) {
      if (label.getValue().equals(worker.labels().get(label.getKey()))) {
        tally.count(label.getKey() + "=" + label.getValue());
      } else {
        all = false;
      }
    }
    return all;
  }

  @Override
  public String whyNone(PendingVm vm, Tally tally, Workers workers) {
    Map<String, String> asked = new TreeMap<>(vm.labels());
    for (Map.Entry<String, String> label : asked.entrySet()) {
      String name = label.getKey() + "=" + label.getValue();
      if (tally.count0(name) == 0) {
        return workers.none() + " has label " + name;
      }
    }
    return workers.none()
        + " has all of the labels "
        + asked.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(", "));
  }
}
