package dev.rota.core.scheduling;

import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Workers in the profile's order, able to answer "the first one in order with this much free"
 * without walking past every worker that is too full: a treap whose nodes know, for each resource,
 * the most any worker below them has free, so a subtree that cannot hold the request is skipped
 * whole.
 *
 * @param <T> a worker during a placement run
 */
final class FitTree<T> implements WorkerFit<T> {
  private final class Node {
    final T item;
    final int priority;
    Node left;
    Node right;
    final long[] mostFree;

    Node(T item, int priority) {
      this.item = item;
      this.priority = priority;
      this.mostFree = free.apply(item).clone();
    }

    void pull() {
      long[] own = free.apply(item);
      for (int r = 0; r < mostFree.length; r++) {
        long m = own[r];
        if (left != null && left.mostFree[r] > m) {
          m = left.mostFree[r];
        }
        if (right != null && right.mostFree[r] > m) {
          m = right.mostFree[r];
        }
        mostFree[r] = m;
      }
    }
  }

  private final Comparator<T> order;
  private final Function<T, long[]> free;
  // Priorities only shape the tree; the answers follow the order alone, so a fixed seed is no bias.
  private final SplittableRandom priorities = new SplittableRandom(0x5eed);
  private Node root;

  /**
   * @param free what a worker has free now, by resource index; read when it is added, so a worker's
   *     free amounts must not change while it is in the tree
   */
  FitTree(Comparator<T> order, Function<T, long[]> free) {
    this.order = order;
    this.free = free;
  }

  @Override
  public void add(T item) {
    Node[] parts = split(root, item);
    root = merge(merge(parts[0], new Node(item, priorities.nextInt())), parts[1]);
  }

  /** Removes the item, which must still compare as it did when added. */
  @Override
  public void remove(T item) {
    root = remove(root, item);
  }

  /** The first item in order whose free amounts cover {@code request}, or null. */
  @Override
  public T firstFit(long[] request) {
    return firstFit(root, request, null);
  }

  /**
   * The first item in order whose free amounts cover {@code request} and that {@code admits}, or
   * null: for what is decided per VM (a worker it avoids, where its set's replicas are).
   */
  @Override
  public T firstFit(long[] request, Predicate<T> admits) {
    return firstFit(root, request, admits);
  }

  private T firstFit(Node n, long[] request, Predicate<T> admits) {
    if (n == null || !covers(n.mostFree, request)) {
      return null;
    }
    T found = firstFit(n.left, request, admits);
    if (found != null) {
      return found;
    }
    if (covers(free.apply(n.item), request) && (admits == null || admits.test(n.item))) {
      return n.item;
    }
    return firstFit(n.right, request, admits);
  }

  /** Whether {@code available} holds {@code request} of every resource. */
  static boolean covers(long[] available, long[] request) {
    for (int r = 0; r < request.length; r++) {
      if (request[r] > available[r]) {
        return false;
      }
    }
    return true;
  }

  /** Splits into the nodes before {@code key} and the rest. */
  private Node[] split(Node n, T key) {
    if (n == null) {
      return new FitTree.Node[] {null, null};
    }
    if (order.compare(n.item, key) < 0) {
      Node[] rest = split(n.right, key);
      n.right = rest[0];
      n.pull();
      return new FitTree.Node[] {n, rest[1]};
    }
    Node[] rest = split(n.left, key);
    n.left = rest[1];
    n.pull();
    return new FitTree.Node[] {rest[0], n};
  }

  private Node merge(Node a, Node b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    if (a.priority > b.priority) {
      a.right = merge(a.right, b);
      a.pull();
      return a;
    }
    b.left = merge(a, b.left);
    b.pull();
    return b;
  }

  private Node remove(Node n, T item) {
    if (n == null) {
      return null;
    }
    int c = order.compare(item, n.item);
    if (c == 0) {
      return merge(n.left, n.right);
    }
    if (c < 0) {
      n.left = remove(n.left, item);
    } else {
      n.right = remove(n.right, item);
    }
    n.pull();
    return n;
  }
}
