package io.bloomguard.guard;

import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Slice;
import org.springframework.data.util.Streamable;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.AbstractList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class EmptyValuesTest {

    @Test
    void rejectedValuesByReturnType() {
        assertThat(empty(Optional.class)).isEqualTo(Optional.empty());
        assertThat(empty(OptionalLong.class)).isEqualTo(OptionalLong.empty());
        assertThat(empty(List.class)).isEqualTo(List.of());
        assertThat(empty(Collection.class)).isEqualTo(List.of());
        assertThat(empty(Iterable.class)).isEqualTo(List.of());
        assertThat(empty(Set.class)).isEqualTo(Set.of());
        assertThat((SortedSet<?>) empty(SortedSet.class)).isEmpty();
        assertThat(empty(Map.class)).isEqualTo(Map.of());
        assertThat(empty(ArrayList.class)).isInstanceOf(ArrayList.class).isEqualTo(List.of());
        assertThat(empty(HashMap.class)).isInstanceOf(HashMap.class);
        assertThat((Stream<?>) empty(Stream.class)).isEmpty();
        assertThat(((IntStream) empty(IntStream.class)).count()).isZero();
        assertThat((long[]) empty(long[].class)).isEmpty();
        assertThat((String[]) empty(String[].class)).isEmpty();
        assertThat(empty(boolean.class)).isEqualTo(false);
        assertThat(empty(Boolean.class)).isEqualTo(false);
        assertThat(empty(long.class)).isEqualTo(0L);
        assertThat(empty(int.class)).isEqualTo(0);
        assertThat(empty(Long.class)).isEqualTo(0L);
        assertThat(empty(void.class)).isNull();
        assertThat(empty(String.class)).isNull();
        assertThat(empty(EmptyValuesTest.class)).isNull();
        assertThat(((Page<?>) empty(Page.class)).hasContent()).isFalse();
        assertThat(((Slice<?>) empty(Slice.class)).hasContent()).isFalse();
        assertThat((Queue<?>) empty(Queue.class)).isInstanceOf(ArrayDeque.class).isEmpty();
        assertThat((Deque<?>) empty(Deque.class)).isInstanceOf(ArrayDeque.class).isEmpty();
        assertThat((List<?>) empty(LinkedList.class)).isInstanceOf(LinkedList.class).isEmpty();
        assertThat((Map<?, ?>) empty(ConcurrentHashMap.class)).isInstanceOf(ConcurrentHashMap.class).isEmpty();
        assertThat(empty(LinkedList.class)).as("a new one per call, as the method would build")
                .isNotSameAs(empty(LinkedList.class));
        assertThat((Set<?>) empty(HashSet.class)).isInstanceOf(HashSet.class).isEmpty();
        assertThat((Map<?, ?>) empty(MultiValueMap.class)).isInstanceOf(LinkedMultiValueMap.class).isEmpty();
        assertThat((List<?>) empty(PackageList.class)).as("no public constructor").isInstanceOf(PackageList.class);
        assertThat((Streamable<?>) empty(ByConstructor.class)).isInstanceOf(ByConstructor.class).isEmpty();
        assertThat((Streamable<?>) empty(ByFactory.class)).isInstanceOf(ByFactory.class).isEmpty();
        assertThat(((Mono<?>) empty(Mono.class)).blockOptional()).isEmpty();
        assertThat(((Flux<?>) empty(Flux.class)).collectList().block()).isEmpty();
    }

    @Test
    void typesWithNoEmptyValueAreRefused() {
        assertThat(EmptyValues.forType(char.class)).isNull();
        assertThat(EmptyValues.forType(Character.class)).isNull();
        assertThat(EmptyValues.forType(Future.class)).isNull();
        assertThat(EmptyValues.forType(java.util.concurrent.CompletableFuture.class)).isNull();
        assertThat(EmptyValues.forType(BlockingQueue.class)).isNull();
        assertThat(EmptyValues.forType(AbstractList.class)).as("abstract").isNull();
        assertThat(EmptyValues.forType(SizedList.class)).as("no no-argument constructor").isNull();
        assertThat(EmptyValues.forType(NotAWrapper.class)).as("a Streamable that cannot be built from one").isNull();
    }

    @Test
    void aRefusedTypeIsToldWhatToReturnInstead() {
        assertThat(EmptyValues.whatToReturnInstead(BlockingQueue.class)).startsWith("Return List, Set, Collection");
        assertThat(EmptyValues.whatToReturnInstead(Future.class)).contains("a Reactor Mono or Flux");
        assertThat(EmptyValues.whatToReturnInstead(char.class)).startsWith("Return Optional");
    }

    static final class ByConstructor implements Streamable<String> {

        private final Streamable<String> values;

        public ByConstructor(Streamable<String> values) {
            this.values = values;
        }

        @Override
        public Iterator<String> iterator() {
            return values.iterator();
        }
    }

    static final class ByFactory implements Streamable<String> {

        private final Streamable<String> values;

        private ByFactory(Streamable<String> values) {
            this.values = values;
        }

        public static ByFactory of(Streamable<String> values) {
            return new ByFactory(values);
        }

        @Override
        public Iterator<String> iterator() {
            return values.iterator();
        }
    }

    static final class NotAWrapper implements Streamable<String> {

        @Override
        public Iterator<String> iterator() {
            return List.<String>of().iterator();
        }

        NotAWrapper(String text) {
        }
    }

    static final class PackageList extends ArrayList<String> {

        PackageList() {
        }
    }

    static final class SizedList extends ArrayList<String> {

        SizedList(int size) {
            super(size);
        }
    }

    @Test
    void whatCountsAsAnEmptyResult() {
        assertThat(EmptyValues.isEmpty(null)).isTrue();
        assertThat(EmptyValues.isEmpty(Optional.empty())).isTrue();
        assertThat(EmptyValues.isEmpty(List.of())).isTrue();
        assertThat(EmptyValues.isEmpty(false)).isTrue();
        assertThat(EmptyValues.isEmpty(0L)).isTrue();
        assertThat(EmptyValues.isEmpty(new int[0])).isTrue();
        assertThat(EmptyValues.isEmpty(Page.empty())).isTrue();
        assertThat(EmptyValues.isEmpty(Optional.of(1))).isFalse();
        assertThat(EmptyValues.isEmpty(List.of(1))).isFalse();
        assertThat(EmptyValues.isEmpty(true)).isFalse();
        assertThat(EmptyValues.isEmpty(3)).isFalse();
        assertThat(EmptyValues.isEmpty("x")).isFalse();
        assertThat(EmptyValues.isEmpty(Stream.empty())).as("a stream is not looked into").isFalse();
    }

    private static Object empty(Class<?> type) {
        var supplier = EmptyValues.forType(type);
        assertThat(supplier).as("empty value of %s", type.getName()).isNotNull();
        return supplier.get();
    }
}
