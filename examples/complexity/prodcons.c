/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A producer/consumer pair of threads: the producer fills a shared block of
 * 64 ints ROUNDS times; after each round the consumer's take() reads it.
 * With --drms=yes the values the producer wrote are thread-induced input
 * of take() and of its caller consumer(), whose DRMS grows with the rounds
 * while its RMS does not. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define ITEMS 64
#define ROUNDS 12
static int shared[ITEMS];
static sem_t full, empty;
static long total;

__attribute__((noinline)) void fill(int round)
{
    for (int i = 0; i < ITEMS; i++)
        shared[i] = round * i;
}

__attribute__((noinline)) long take(void)
{
    long s = 0;
    for (int i = 0; i < ITEMS; i++)
        s += shared[i];
    return s;
}

static void *producer(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        sem_wait(&empty);
        fill(r);
        sem_post(&full);
    }
    return NULL;
}

__attribute__((noinline)) void consumer(void)
{
    for (int r = 0; r < ROUNDS; r++) {
        sem_wait(&full);
        total += take();
        sem_post(&empty);
    }
}

int main(void)
{
    pthread_t t;
    sem_init(&full, 0, 0);
    sem_init(&empty, 0, 1);
    if (pthread_create(&t, NULL, producer, NULL) != 0) return 1;
    consumer();
    pthread_join(t, NULL);
    printf("%ld\n", total);
    return 0;
}
