package dev.rota.control;

import dev.rota.store.VmRow;

/**
 * The static summary the Temporal UI shows for a VM's workflow: what it runs and what it asks for.
 */
public final class VmSummary {
  private VmSummary() {}

  public static String of(VmRow vm) {
    String what =
        vm.spec().image() != null ? vm.spec().image() : String.join(" ", vm.spec().command());
    if (what.length() > 120) {
      what = what.substring(0, 117) + "...";
    }
    return vm.spec().runtime() + ": " + what + " " + vm.spec().resources();
  }
}
