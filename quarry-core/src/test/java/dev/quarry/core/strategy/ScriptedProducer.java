package dev.quarry.core.strategy;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/** A producer that hands out queued tasks and records which thread produced each one. */
final class ScriptedProducer implements ExecutionStrategy.Producer {
    final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    final List<Thread> producingThreads = new CopyOnWriteArrayList<>();
    final Map<Runnable, Thread> producedBy = new ConcurrentHashMap<>();

    ScriptedProducer add(Runnable task) {
        tasks.add(task);
        return this;
    }

    @Override
    public Runnable produce() {
        Runnable task = tasks.poll();
        if (task != null) {
            producingThreads.add(Thread.currentThread());
            producedBy.put(task, Thread.currentThread());
        }
        return task;
    }
}
