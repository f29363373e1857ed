package dev.rota.core.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FitTreeTest {
  record Box(String name, long[] free, double score) {}

  /** The tree must answer exactly as a walk over the workers in order would. */
  @Test
  void firstFitAgreesWithAPlainWalkInOrder() {
    Random random = new Random(11);
    Comparator<Box> order = Comparator.comparingDouble(Box::score).thenComparing(Box::name);
    for (int round = 0; round < 300; round++) {
      FitTree<Box> tree = new FitTree<>(order, Box::free);
      List<Box> all = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(60); i++) {
        Box b =
            new Box(
                "b" + i, new long[] {random.nextInt(10), random.nextInt(10)}, random.nextInt(5));
        all.add(b);
        tree.add(b);
      }
      for (int step = 0; step < 40; step++) {
        if (!all.isEmpty() && random.nextInt(4) == 0) {
          Box gone = all.remove(random.nextInt(all.size()));
          tree.remove(gone);
        }
        long[] request = {random.nextInt(11), random.nextInt(11)};
        Box expected =
            all.stream()
                .sorted(order)
                .filter(b -> b.free()[0] >= request[0] && b.free()[1] >= request[1])
                .findFirst()
                .orElse(null);
        assertEquals(expected, tree.firstFit(request), "round " + round + " step " + step);
      }
    }
  }
}
