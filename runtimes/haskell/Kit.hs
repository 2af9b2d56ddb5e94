{-# LANGUAGE BangPatterns, LambdaCase, MagicHash, OverloadedStrings, RankNTypes, UnboxedTuples #-}
-- | The concbench Haskell kit: what a workload file sees.
--
-- A workload file exports @mechanisms@, its mechanisms by name. A mechanism
-- reads its parameters and prepares what its runs only read (a table, a
-- compiled pattern), untimed, then returns a 'Run': how many units one run
-- starts at most, how they are counted, and the timed action that does the
-- whole job once (creates its units, waits for all of them, closes what it
-- opened) and returns its 'Outcome'. Main times that action warmup + runs
-- times and forces the outcome inside the timed region, unless the action
-- hands the part it times to 'clocked': a server opens its listener before
-- that part, says where ('announce') and closes it after, untimed. The
-- kit's own untimed step after the clock is the census's sweep (below).
--
-- Units and peak_live (docs/protocol.md, "Evidence"). Main gives every run a
-- 'Census' of 'slots' slots (an unboxed array, one slot per unit,
-- preallocated), cleared before the clock starts. Every unit reads the
-- monotonic clock as its first and as its last instruction, and the two
-- readings end up in the unit's own slot: 'fork' of 'forkio' and 'stm'
-- takes the next slot in the forking thread and the unit hands its readings
-- back with its result, for the awaiting thread to store; a body forked by
-- someone else runs under 'unit', which stores them itself. No lock, no
-- counter the units share. After the clock stops, Main sweeps the slots:
-- units = the slots stamped with a start, peak_live = the most bodies
-- between their two stamps at once (a start and an end at the same
-- nanosecond count as not overlapping), and a unit that never ended (or
-- that was never awaited) fails the run.
--
-- The async package forks threads of its own that no workload code runs in
-- (Concurrently's <*> forks both of its sides: mapConcurrently over n
-- elements makes 2n threads, and the n "rest of the list" ones run only
-- async's code), so no stamp can count them. The RTS numbers its threads
-- one after another as it creates them (rts/Threads.c: tso->id =
-- next_thread_id++), and Main reads that number, untimed, before and after
-- each run (the ThreadId of a probe thread it forks and awaits): a run with
-- 'Created' reports as units every thread the RTS created during it, the
-- library's included. It would also count a thread the RTS starts to run
-- Haskell finalizers after a GC: Main collects before every run, ahead of
-- its first probe, so that the kit's own garbage (stdin's Handle) is gone
-- before any clock starts, and the workloads counted so hold no object
-- with a finalizer (pipe reads and writes its descriptors without Handles;
-- echo's sockets have one, so its async row counts stamps).
-- A library that runs several bodies one after another on threads of its
-- own (streamly) has its bodies stamped as units ('Pooled'), however few
-- threads carried them.
-- Main checks every run against that number: the census never counts more
-- units (for 'Pooled', more bodies at once) than threads were created
-- (else the run fails), and where every
-- thread should be a stamped unit ('Stamped') a difference is noted on
-- stderr. peak_live counts the stamped bodies only, so it stays at or below
-- units.
--
-- What counting costs: the COUNTING COST note at 'unit'.
--
-- Evidence: each unit counts its events (a lock found held, a queue found
-- full or empty) in a 'Tally' of its own, which it makes itself; the
-- workload sums the tallies after awaiting the units and reports the total
-- in its Outcome's evidence.
module Kit
  ( -- * Mechanisms and runs
    Params, int, choice, scratch, Mechanism, Run (..), Counting (..), Outcome (..)
    -- * Clocks
  , Moment (..), clockStart, clockStop, clocked, clockedSpan
    -- * Servers
  , announce
    -- * Units
  , Census, newCensus, clearCensus, sweepCensus, Sweep (..), unit
    -- * Events
  , Tally, newTally, bump, tallied
    -- * What units talk through
  , Queue (..), Box (..), Prims (..), forkio, stm, foldStrict
  , KitError (..), builtWithout
  ) where

import Control.Concurrent (forkIO)
import Control.Concurrent.MVar
import Control.Concurrent.STM
import Control.DeepSeq (NFData (..), force)
import Control.Exception (Exception, SomeException, evaluate, mask, mask_, throwIO, try)
import Control.Monad (foldM, replicateM, unless, when, (<$!>))
import Data.Array (listArray, (!))
import Data.Array.Base (unsafeRead, unsafeWrite)
import Data.Array.IO (IOUArray, newArray)
import Data.Aeson (Object, encode, object, (.:), (.=))
import Data.Aeson.Types (parseMaybe)
import qualified Data.ByteString.Lazy.Char8 as BL
import Data.Int (Int64)
import Data.IORef (IORef, newIORef, readIORef, writeIORef)
import Data.List (intercalate)
import Data.String (fromString)
import Data.Word (Word64)
import Foreign.C.Error (throwErrnoIfMinus1_)
import Foreign.C.Types (CInt (..))
import Foreign.Marshal.Array (allocaArray)
import Foreign.Ptr (Ptr)
import Foreign.Storable (peekElemOff)
import GHC.Clock (getMonotonicTimeNSec)
import GHC.Exts (Int (I#), MutableByteArray#, RealWorld, fetchAddIntArray#, newByteArray#, writeIntArray#)
import GHC.IO (IO (IO))
import Network.Socket (SockAddr (..), Socket, getSocketName, hostAddressToTuple)
import System.IO (hFlush, stdout)

-- | The request's "params" object.
type Params = Object

-- | An integer parameter.
int :: Params -> String -> IO Int
int params name = maybe (throwIO (KitError ("parameter " ++ name ++ " is missing or not an integer"))) pure
  (parseMaybe (.: fromString name) params)

-- | A choice parameter (a string).
choice :: Params -> String -> IO String
choice params name = maybe (throwIO (KitError ("parameter " ++ name ++ " is missing or not a string"))) pure
  (parseMaybe (.: fromString name) params)

-- | The trial's scratch directory (the request's, which Main adds to the
-- params), where a workload makes its files and sockets.
scratch :: Params -> IO FilePath
scratch params = choice params "scratch"

-- | Prepares (untimed) and returns the run.
type Mechanism = Params -> IO Run

-- | One run of a mechanism.
data Run = Run
  { slots :: !Int
    -- ^ the most units one run stamps: the census's size
  , counting :: !Counting
  , timed :: Census -> IO Outcome
    -- ^ the whole job once, timed (or only the part it hands 'clocked');
    -- its units are forked with 'fork' or run under 'unit' in this census
  }

-- | How a run's units are counted.
data Counting
  = Stamped
    -- ^ every thread the run creates is a unit it stamps ('fork', 'unit'):
    -- units are the slots stamped (forkio, stm)
  | Created
    -- ^ a library (async) forks threads around the bodies that no stamp can
    -- reach: units are the threads the RTS created during the run
  | Pooled
    -- ^ a library (streamly) runs the bodies on threads of its own, as many
    -- as it decides and several bodies one after another on one: units are
    -- the stamped bodies, as for Stamped, and peak_live the most running at
    -- once, never more than the threads the RTS created
  deriving (Eq)

-- | What a run reports: the values its workload's [expect] names, and the
-- evidence its spec declares under [evidence] (Nothing: unobservable).
data Outcome = Outcome
  { result :: [(String, Int)]
  , evidence :: [(String, Maybe Int)]
  }

instance NFData Outcome where
  rnf (Outcome values events) = rnf values `seq` rnf events

-- | A request the kit cannot serve, or a run that went wrong: its message.
newtype KitError = KitError String

-- | Why a mechanism of an optional package cannot run: the kit was built
-- where GHC did not find the package (the Makefile's CPP guard).
builtWithout :: String -> KitError
builtWithout package = KitError ("the kit was built without " ++ package
  ++ ": GHC found no " ++ package ++ " package when it built the kit")

instance Show KitError where
  show (KitError message) = message

instance Exception KitError

-- * Units

-- | A run's units: slot i's start stamp at i, its end stamp at n + i (0 =
-- not yet; a start of 1: forked, not yet awaited), and the next slot
-- 'fork' gives; and the span 'clocked' timed, if the run gave it one.
data Census = Census
  { censusSlots :: !Int
  , stamps :: !(IOUArray Int Word64)
  , nextSlot :: !Counter
  , timedSpan :: !(IORef (Maybe (Moment, Moment)))
  }

-- | Preallocates a census of n slots (16 bytes each), Main does, untimed.
newCensus :: Int -> IO Census
newCensus n = Census n <$> newArray (0, 2 * max 1 n - 1) 0 <*> newCounter <*> newIORef Nothing

-- | Before a run, untimed: no slot stamped, 'fork' starts again at slot 0,
-- no span clocked.
clearCensus :: Census -> IO ()
clearCensus c = do
  let loop :: Int -> IO ()
      loop i = when (i < 2 * censusSlots c) (unsafeWrite (stamps c) i 0 >> loop (i + 1))
  loop 0
  resetCounter (nextSlot c)
  writeIORef (timedSpan c) Nothing

-- | COUNTING COST. Per unit, two reads of the monotonic clock (vDSO, 27 ns
-- each here) and two stores; for 'fork', an uncontended atomic add and one
-- store in the forking thread and two stores in the awaiting one. Measured
-- on spawn, tasks=10000, warmup=2 runs=5 (delay_ms=0) or warmup=1 runs=3
-- (delay_ms=100), this kit against itself with the counting compiled out
-- (@unit _ _ body = body@, 'fork' the forkFinally it was before), eight
-- trials each, alternating, medians of the timed runs, on this shared
-- 2-core machine (the noise is a few ms):
--
--   delay_ms=0, wall:         forkio 17.3 ms against 13.3 ms (+4.0, +30 %)
--                             stm     7.6 ms against  7.3 ms
--                             async   66 ms  against   64 ms (noise)
--   delay_ms=100, overhead:   forkio 45.7 ms against 45.4 ms
--                             stm     ~34 ms against  ~25 ms (minima 19, 18)
--                             async   76 ms  against   80 ms (noise)
--
-- The clock and the stores are about 0.5 ms of forkio's 4 at delay 0 (a
-- loop forking 10,000 threads with and without them, outside the kit). The
-- rest is GHC's scheduler reacting to thread bodies that are no longer the
-- bare @pure i@: with the debug RTS (-Ds), 18,000 forks through this kit's
-- 'fork' yield 1,037 times against 826 and wake an idle capability 743
-- times against 601, and any change to the body, even a single read of the
-- census without the clock, moves them as much. Handing the stamps back through the
-- unit's result ('fork', above) rather than storing them from the unit took
-- forkio at delay 100 from +8 ms to nothing measurable. In memory, a slot is
-- 16 bytes: 160 KB at 10,000 units, allocated before the first run
-- (spawn's peak RSS, 9.4 to 9.7 MB for forkio, varies by more than that).
--
-- Runs a unit's body in slot i, for bodies the kit does not fork itself (the
-- async package's, or a workload's own forkIO): stamps its start as its
-- first instruction and its end as its last, into the census (before
-- whatever signals its end to its awaiter).
unit :: Census -> Int -> IO a -> IO a
unit c i body = do
  when (i < 0 || i >= censusSlots c) (outside c i)
  getMonotonicTimeNSec >>= unsafeWrite (stamps c) i
  value <- body
  getMonotonicTimeNSec >>= unsafeWrite (stamps c) (censusSlots c + i)
  pure value
{-# INLINE unit #-}

-- | A slot the census does not have: a workload's error.
outside :: Census -> Int -> IO ()
outside c i = throwIO (KitError ("unit slot " ++ show i ++ " outside the census's " ++ show (censusSlots c)))
{-# NOINLINE outside #-}

-- | How 'fork' stamps a unit. The forking thread takes the next slot and
-- marks it forked (1, below any stamp: a unit never awaited shows in the
-- sweep as one that never ended). The unit reads the clock as its first
-- and its last instruction and hands both readings back with its result
-- (forkFinally's try, with the stamps around it); whoever awaits it writes
-- them into its slot. The units themselves never touch the census, so two
-- units on two cores never write the same cache line.
forkedSlot :: Census -> IO Int
forkedSlot c = do
  i <- takeNext (nextSlot c)
  when (i >= censusSlots c) (outside c i)
  unsafeWrite (stamps c) i 1
  pure i
{-# INLINE forkedSlot #-}

-- | A unit's result and the clock as it started and as it ended.
data Ended a = Ended !Word64 !Word64 (Either SomeException a)

stampedTry :: (IO a -> IO a) -> IO a -> IO (Ended a)
stampedTry restore body = do
  start <- getMonotonicTimeNSec
  tried <- try (restore body)
  end <- getMonotonicTimeNSec
  pure (Ended start end tried)
{-# INLINE stampedTry #-}

awaited :: Census -> Int -> Ended a -> IO a
awaited c i (Ended start end tried) = do
  unsafeWrite (stamps c) i start
  unsafeWrite (stamps c) (censusSlots c + i) end
  either throwIO pure tried
{-# INLINE awaited #-}

-- | What the sweep after the clock finds.
data Sweep = Sweep
  { stamped :: !Int    -- ^ bodies that started
  , unfinished :: !Int -- ^ of those, bodies with no end stamp
  , peakLive :: !Int   -- ^ most bodies alive at once
  }

-- | After the clock stops: counts the stamped slots and the most bodies
-- alive at once (ends taken before starts at the same nanosecond, so a
-- start right at another's end does not count as overlapping it). It sorts
-- the starts and the ends in place (the census is cleared before the next
-- run) and allocates nothing on the heap, so that it leaves the next run's
-- heap as it found it.
sweepCensus :: Census -> IO Sweep
sweepCensus c = do
  let n = censusSlots c
      a = stamps c
      count :: Int -> Int -> Int -> IO (Int, Int)
      count i !started !unended
        | i == n = pure (started, unended)
        | otherwise = do
            s <- unsafeRead a i
            e <- unsafeRead a (n + i)
            -- An end without a start cannot be; an unended unit ends never.
            if s == 0 then count (i + 1) started unended
            else if e == 0 then unsafeWrite a (n + i) maxBound >> count (i + 1) (started + 1) (unended + 1)
            else count (i + 1) (started + 1) unended
  (started, unended) <- count 0 0 (0 :: Int)
  heapSort a 0 n
  heapSort a n n
  -- The unstamped slots' zeros sort first in both halves.
  let skip = n - started
      merge :: Int -> Int -> Int -> Int -> IO Int
      merge i j !live !most
        | i == n = pure most
        | otherwise = do
            s <- unsafeRead a i
            e <- unsafeRead a (n + j)
            if s < e then merge (i + 1) j (live + 1) (max most (live + 1))
                     else merge i (j + 1) (live - 1) most
  Sweep started unended <$> merge skip skip 0 0

-- | Sorts the n elements from offset o of an unboxed array, in place.
heapSort :: IOUArray Int Word64 -> Int -> Int -> IO ()
heapSort a o n = do
  let at :: Int -> IO Word64
      at i = unsafeRead a (o + i)
      set :: Int -> Word64 -> IO ()
      set i = unsafeWrite a (o + i)
      -- Sifts element i down the heap of the first m elements.
      sift :: Int -> Int -> IO ()
      sift !m !i = do
        let l = 2 * i + 1
        when (l < m) $ do
          x <- at i
          lv <- at l
          rv <- if l + 1 < m then at (l + 1) else pure 0
          let child = if rv > lv then l + 1 else l
          cv <- at child
          when (cv > x) (set i cv >> set child x >> sift m child)
      build :: Int -> IO ()
      build i = when (i >= 0) (sift n i >> build (i - 1))
      pick :: Int -> IO ()
      pick m = when (m > 1) $ do
        top <- at 0
        at (m - 1) >>= set 0
        set (m - 1) top
        sift (m - 1) 0
        pick (m - 1)
  build (n `div` 2 - 1)
  pick n

-- | An Int cell that forking threads add to atomically (GHC.Exts's
-- fetchAddIntArray#: a lock xadd; array's IOUArray has no atomic add).
data Counter = Counter (MutableByteArray# RealWorld)

newCounter :: IO Counter
newCounter = IO $ \s -> case newByteArray# 8# s of
  (# s', a #) -> case writeIntArray# a 0# 0# s' of s'' -> (# s'', Counter a #)

resetCounter :: Counter -> IO ()
resetCounter (Counter a) = IO $ \s -> case writeIntArray# a 0# 0# s of s' -> (# s', () #)

-- | Adds one; returns the value before.
takeNext :: Counter -> IO Int
takeNext (Counter a) = IO $ \s -> case fetchAddIntArray# a 0# 1# s of (# s', n #) -> (# s', I# n #)

-- * Clocks

-- | The clocks at one moment, in nanoseconds: the monotonic wall clock, and
-- the user and system CPU time of the whole process.
data Moment = Moment { wallNs :: !Word64, userNs, sysNs :: !Int64 }

-- | Reads the clocks as a span starts: the CPU time, then the wall clock,
-- innermost.
clockStart :: IO Moment
clockStart = do
  (user, system) <- cpuTime
  wall <- getMonotonicTimeNSec
  pure (Moment wall user system)

-- | Reads the clocks as a span ends: the wall clock, innermost, then the CPU time.
clockStop :: IO Moment
clockStop = do
  wall <- getMonotonicTimeNSec
  (user, system) <- cpuTime
  pure (Moment wall user system)

-- | Times the part of a run that is its work, its value forced inside: Main
-- reports this span, not its own around the whole run.
clocked :: NFData a => Census -> IO a -> IO a
clocked c work = do
  start <- clockStart
  value <- work >>= evaluate . force
  stop <- clockStop
  writeIORef (timedSpan c) (Just (start, stop))
  pure value

-- | The span the run timed with 'clocked', if it did.
clockedSpan :: Census -> IO (Maybe (Moment, Moment))
clockedSpan = readIORef . timedSpan

foreign import ccall unsafe "concbench_cpu_ns" c_cpu_ns :: Ptr Int64 -> IO CInt

-- | User and system CPU time of the whole process so far, in nanoseconds.
cpuTime :: IO (Int64, Int64)
cpuTime = allocaArray 2 $ \out -> do
  throwErrnoIfMinus1_ "getrusage" (c_cpu_ns out)
  (,) <$> peekElemOff out 0 <*> peekElemOff out 1

-- * Servers

-- | Says where a server's listener listens, before its clock starts: one
-- line on stdout, flushed at once, {"listening": "tcp:127.0.0.1:PORT"} or
-- {"listening": "unix:PATH"}, which the harness reads as it comes and hands
-- to its load generator (the answer is still the last line).
announce :: Socket -> IO ()
announce listener = do
  address <- getSocketName listener >>= \case
    SockAddrInet port host -> pure ("tcp:" ++ dotted host ++ ":" ++ show port)
    SockAddrUnix path -> pure ("unix:" ++ path)
    other -> throwIO (KitError ("a listener on " ++ show other))
  BL.putStrLn (encode (object ["listening" .= (address :: String)]))
  hFlush stdout
  where
    dotted host = let (a, b, c, d) = hostAddressToTuple host in intercalate "." (map show [a, b, c, d])

-- * Events

-- | One unit's count of its events, made by the unit (in its own thread, so
-- on its own capability's heap) and touched only by it until it is awaited.
newtype Tally = Tally (IOUArray Int Int)

newTally :: IO Tally
newTally = Tally <$> newArray (0, 0) 0

-- | One more event.
bump :: Tally -> IO ()
bump (Tally a) = unsafeRead a 0 >>= unsafeWrite a 0 . (+ 1)

tallied :: Tally -> IO Int
tallied (Tally a) = unsafeRead a 0

-- * What units talk through

-- | A FIFO between units. push waits while the queue is full (a bounded one),
-- pop while it is empty; each bumps the caller's tally when it found the
-- queue so and had to wait.
data Queue a = Queue { push :: Tally -> a -> IO (), pop :: Tally -> IO a }

-- | A one-slot mailbox: putBox waits while it is full, takeBox while it is empty.
data Box a = Box { putBox :: a -> IO (), takeBox :: IO a }

-- | What the workloads written once for several mechanisms are written
-- against: how a unit starts (in the census's next slot; the action it
-- returns awaits the unit's result and rethrows its exception), and the
-- queues (of a capacity, 0 = unbounded) and boxes units talk through.
data Prims = Prims
  { fork :: forall a. Census -> IO a -> IO (IO a)
  , newQueue :: forall a. Int -> IO (Queue a)
  , newBox :: forall a. IO (Box a)
  }

-- | forkIO threads; an MVar for each unit's result; for queues, base's Chan
-- (unbounded) or a ring of MVars (bounded); MVar boxes.
forkio :: Prims
forkio = Prims
  { fork = \c body -> do
      i <- forkedSlot c
      done <- newEmptyMVar
      _ <- mask $ \restore -> forkIO $ stampedTry restore body >>= putMVar done
      pure (takeMVar done >>= awaited c i)
  , newQueue = \capacity -> if capacity == 0 then newChanQueue else newRingQueue capacity
  , newBox = (\v -> Box (putMVar v) (takeMVar v)) <$> newEmptyMVar
  }

-- | The algorithm of base's Control.Concurrent.Chan (base does not export
-- Chan's constructor, so it is written out here): a linked list of MVars,
-- the read end and the write end each in an MVar. A pop looks at the hole
-- at the read end with tryReadMVar before it blocks on it with readMVar,
-- and so sees that the queue was empty. A consumer waiting for the read
-- end's MVar behind another that waits for an item is not counted: the
-- count is a lower bound where several consumers share a queue.
data Item a = Item a (MVar (Item a))

newChanQueue :: IO (Queue a)
newChanQueue = do
  hole <- newEmptyMVar
  readEnd <- newMVar hole
  writeEnd <- newMVar hole
  pure Queue
    { push = \_ value -> do
        next <- newEmptyMVar
        mask_ $ do
          old <- takeMVar writeEnd
          putMVar old (Item value next)
          putMVar writeEnd next
    , pop = \t -> modifyMVar readEnd $ \end -> do
        seen <- tryReadMVar end
        Item value next <- maybe (bump t >> readMVar end) pure seen
        pure (next, value)
    }

-- | A bounded queue as the BoundedChan package makes one: a ring of
-- `capacity` MVars, the next slot to write and the next to read each in an
-- MVar. A push tries to fill its slot (tryPutMVar) before it blocks on it, a
-- pop tries to empty its slot (tryTakeMVar) before it blocks: the slot at
-- the write end is full only when the ring is, the one at the read end empty
-- only when the ring is. As in newChanQueue, a unit waiting behind another
-- for the end's MVar is not counted: a lower bound.
newRingQueue :: Int -> IO (Queue a)
newRingQueue capacity = do
  ring <- listArray (0, capacity - 1) <$> replicateM capacity newEmptyMVar
  writeAt <- newMVar 0
  readAt <- newMVar 0
  let following i = if i + 1 == capacity then 0 else i + 1
  pure Queue
    { push = \t value -> modifyMVar_ writeAt $ \i -> do
        filled <- tryPutMVar (ring ! i) value
        unless filled (bump t >> putMVar (ring ! i) value)
        pure (following i)
    , pop = \t -> modifyMVar readAt $ \i -> do
        seen <- tryTakeMVar (ring ! i)
        value <- maybe (bump t >> takeMVar (ring ! i)) pure seen
        pure (following i, value)
    }

-- | forkIO threads that talk only through STM: a TMVar for each unit's
-- result, TQueue (unbounded) and TBQueue (bounded) queues, TMVar boxes.
stm :: Prims
stm = Prims
  { fork = \c body -> do
      i <- forkedSlot c
      done <- newEmptyTMVarIO
      _ <- mask $ \restore -> forkIO $ stampedTry restore body >>= atomically . putTMVar done
      pure (atomically (takeTMVar done) >>= awaited c i)
  , newQueue = \capacity -> if capacity == 0
      then do
        q <- newTQueueIO
        pure Queue { push = \_ value -> atomically (writeTQueue q value)
                   , pop = stmPop (isEmptyTQueue q) (readTQueue q) }
      else do
        q <- newTBQueueIO (fromIntegral capacity)
        pure Queue { push = stmPush (isFullTBQueue q) (writeTBQueue q)
                   , pop = stmPop (isEmptyTBQueue q) (readTBQueue q) }
  , newBox = (\v -> Box (atomically . putTMVar v) (atomically (takeTMVar v))) <$> newEmptyTMVarIO
  }

-- | A push into a bounded queue (a pop) is one transaction that looks
-- whether the queue is full (empty) and, if not, writes (reads); if it was,
-- the unit bumps its tally and runs the blocking write (read), whose retry
-- parks it until the queue changes. Every unit looks for itself: the count
-- is exact. (A push into an unbounded TQueue never waits: one writeTQueue.)
stmPush :: STM Bool -> (a -> STM ()) -> Tally -> a -> IO ()
stmPush full write t value = do
  done <- atomically $ full >>= \f -> if f then pure False else True <$ write value
  unless done (bump t >> atomically (write value))
{-# INLINE stmPush #-}

stmPop :: STM Bool -> STM a -> Tally -> IO a
stmPop empty readOne t = do
  seen <- atomically $ empty >>= \e -> if e then pure Nothing else Just <$> readOne
  maybe (bump t >> atomically readOne) pure seen
{-# INLINE stmPop #-}

-- | Runs the actions in order and sums the Ints they return, adding each as it comes.
foldStrict :: [IO Int] -> IO Int
foldStrict = foldM (\total next -> (total +) <$!> next) 0
