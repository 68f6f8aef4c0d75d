package io.bloomguard.testapp;

import io.bloomguard.annotation.BloomGuarded;
import io.bloomguard.annotation.BloomPut;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/** Guarded methods on a class (a CGLIB proxy, unlike the repository's JDK proxy). */
@Component
public class Lookups {

    private final CustomerRepository customers;
    private final JdbcTemplate jdbc;
    private volatile Runnable afterInsert = () -> { };
    private final AtomicBoolean failNextCreate = new AtomicBoolean();
    private final List<String> reactiveQueryThreads = new CopyOnWriteArrayList<>();

    public Lookups(CustomerRepository customers, JdbcTemplate jdbc) {
        this.customers = customers;
        this.jdbc = jdbc;
    }

    /** Guarded by a filter in shadow mode whose key source leaves out the customers with even ids. */
    @BloomGuarded(filter = "shadowed")
    public Optional<Customer> shadowed(Long id) {
        return customers.findCustomerById(id);
    }

    /** Guarded by a filter sized for 1,000 keys at a 50% error rate: plenty of false positives to count. */
    @BloomGuarded(filter = "tiny")
    public Optional<Customer> tiny(Long id) {
        return customers.findCustomerById(id);
    }

    /**
     * Inserts a row in its own auto-committed statement, outside any transaction, and only then knows the key:
     * the commit happens before the put. {@link #afterInsert} runs between the two.
     */
    @BloomPut(filter = "customers", key = "#result")
    public long insertCommittedBeforeKeyIsKnown(String name) {
        jdbc.update("insert into customer (name, tenant, code) values (?, 't9', ?)", name, "raw-" + name);
        long id = jdbc.queryForObject("select id from customer where name = ?", Long.class, name);
        afterInsert.run();
        return id;
    }

    /** Writes a customer, then fails to compute its key: {@code Customer} has no property 'nickname'. */
    @BloomPut(filter = "fragile", key = "#result.nickname")
    public Customer saveWithBrokenKey(String name) {
        return customers.save(new Customer(name, "t8", "fragile-" + name));
    }

    /** Writes a customer whose key, a fraction, is a type no filter can hash. */
    @BloomPut(filter = "refusing", key = "#result.id / 2.0")
    public Customer saveWithUnhashableKey(String name) {
        return customers.save(new Customer(name, "t8", "refused-" + name));
    }

    /** The same in a transaction, for a filter whose failures are thrown ({@code on-backend-failure: throw}). */
    @Transactional
    @BloomPut(filter = "strict", key = "#result.id / 2.0")
    public Customer saveStrictlyWithUnhashableKey(String name) {
        return customers.save(new Customer(name, "t8", "strict-" + name));
    }

    /**
     * Saves a customer, then fails once (a deadlock, say) after the row got its id: the transaction rolls back,
     * and {@link RetryOnce} runs the method again, which saves it with a new id and commits.
     */
    @RetryOnce
    @Transactional
    @BloomPut(filter = "retried", key = "#result.id")
    public Customer createFailingOnce(String name) {
        Customer saved = customers.save(new Customer(name, "t8", "retried-" + name));
        if (failNextCreate.getAndSet(false)) {
            throw new IllegalStateException("deadlock detected, say");
        }
        return saved;
    }

    public void failNextCreate() {
        failNextCreate.set(true);
    }

    @BloomGuarded(filter = "retried", key = "#id")
    public Optional<Customer> retried(Long id) {
        return customers.findCustomerById(id);
    }

    /**
     * Saves a customer, then fails to send its welcome mail: a checked exception, for which {@code @Transactional}
     * commits. The row is there, and the method gave no result to key.
     */
    @Transactional
    @BloomPut(filter = "mailed", key = "#result.id")
    public Customer saveThenFailToMail(String name) throws IOException {
        customers.save(new Customer(name, "t8", "mailed-" + name));
        throw new IOException("mail server down");
    }

    /** The same with an unchecked exception, for which the transaction rolls back: nothing is written. */
    @Transactional
    @BloomPut(filter = "mailed", key = "#result.id")
    public Customer saveThenFailUnchecked(String name) {
        customers.save(new Customer(name, "t8", "mailed-" + name));
        throw new IllegalStateException("constraint violated, say");
    }

    @BloomGuarded(filter = "mailed", key = "#id")
    public Optional<Customer> mailed(Long id) {
        return customers.findCustomerById(id);
    }

    /**
     * Saves the customer it is given and returns nothing; its key, read from that argument once the save has
     * given it an id, fails: {@code Customer} has no property 'nickname'.
     */
    @Transactional
    @BloomPut(filter = "registered", key = "#customer.nickname")
    public void register(Customer customer) {
        customers.save(customer);
    }

    /** Inserts a customer with its own statement: the id the database assigns never reaches the argument. */
    @Transactional
    @BloomPut(filter = "registered", key = "#customer.id")
    public void registerWithoutTellingTheId(Customer customer) {
        jdbc.update("insert into customer (name, tenant, code) values (?, ?, ?)", customer.getName(),
                customer.getTenant(), customer.getCode());
    }

    @BloomGuarded(filter = "registered", key = "#id")
    public Optional<Customer> registered(Long id) {
        return customers.findCustomerById(id);
    }

    /**
     * Inserts a customer in its own statement, then fails to compute its key for 'codes': nothing else puts it
     * (the repository's save is not used).
     */
    @BloomPut(filter = "codes", key = "#result.nickname")
    public Customer insertCodeWithBrokenKey(String tenant, String code) {
        jdbc.update("insert into customer (name, tenant, code) values (?, ?, ?)", "lost", tenant, code);
        long id = jdbc.queryForObject("select id from customer where tenant = ? and code = ?", Long.class, tenant, code);
        return customers.findCustomerById(id).orElseThrow();
    }

    @BloomGuarded(filter = "fragile", key = "#id")
    public Optional<Customer> fragile(Long id) {
        return customers.findCustomerById(id);
    }

    @BloomGuarded(filter = "refusing", key = "#id")
    public Optional<Customer> refusing(Long id) {
        return customers.findCustomerById(id);
    }

    /** The key is a property of the argument, which may be null. */
    @BloomGuarded(filter = "customers", key = "#probe.id")
    public Optional<Customer> byProbe(Customer probe) {
        return (probe == null) ? Optional.empty() : customers.findCustomerById(probe.getId());
    }

    /** Like {@link #shadowed}, but its result is a stream, which cannot be looked into without consuming it. */
    @BloomGuarded(filter = "shadowed")
    public Stream<Customer> shadowedStream(Long id) {
        return customers.findCustomerById(id).stream();
    }

    /** Guarded, and returns nothing: its results say neither "found" nor "not found". */
    @BloomGuarded(filter = "tiny")
    public void touchTiny(Long id) {
        customers.findCustomerById(id);
    }

    /**
     * A reactive finder, as a reactive repository would be; the query here is JPA's, run when subscribed to.
     * Notes the thread each query ran on.
     */
    @BloomGuarded(filter = "customers")
    public Mono<String> nameReactively(Long id) {
        return Mono.fromCallable(() -> queryName(id));
    }

    @BloomGuarded(filter = "customers")
    public Flux<String> namesReactively(Long id) {
        return Flux.defer(() -> Flux.fromIterable(Optional.ofNullable(queryName(id)).stream().toList()));
    }

    /** The names of the customers among {@code ids}, queried with the ids the guard let through. */
    @BloomGuarded(filter = "customers")
    public Flux<String> namesOfAllReactively(List<Long> ids) {
        return Flux.defer(() -> Flux.fromIterable(ids).mapNotNull(this::queryName));
    }

    /** The threads the reactive finders' queries ran on, in order. */
    public List<String> reactiveQueryThreads() {
        return List.copyOf(reactiveQueryThreads);
    }

    private String queryName(Long id) {
        reactiveQueryThreads.add(Thread.currentThread().getName());
        return customers.findCustomerById(id).map(Customer::getName).orElse(null);
    }

    public void setAfterInsert(Runnable afterInsert) {
        this.afterInsert = afterInsert;
    }
}
