{-# LANGUAGE RankNTypes #-}
-- | The concbench Haskell kit: what a workload file sees.
--
-- A workload file exports @mechanisms@, its mechanisms by name. A mechanism
-- reads its parameters and prepares what its runs only read (a table, a
-- compiled pattern), untimed, then returns the run: an action that does the
-- whole job once (creates its units, waits for all of them, closes what it
-- opened) and returns its outcome. Main times that action warmup + runs
-- times and forces the outcome inside the timed region.
module Kit
  ( Params, Mechanism, Outcome (..), KitError (..), int
  , Queue (..), Box (..), Prims (..), forkio, stm, foldStrict
  ) where

import Control.Concurrent (forkFinally)
import Control.Concurrent.Chan (newChan, readChan, writeChan)
import Control.Concurrent.MVar (newEmptyMVar, putMVar, takeMVar)
import Control.Concurrent.STM
import Control.DeepSeq (NFData (..))
import Control.Exception (Exception, throwIO)
import Control.Monad (foldM, (<$!>))
import Data.Aeson (Object, (.:))
import Data.Aeson.Types (parseMaybe)
import Data.String (fromString)

-- | The request's "params" object.
type Params = Object

-- | Prepares (untimed) and returns one run (timed).
type Mechanism = Params -> IO (IO Outcome)

-- | What a run reports: the values its workload's [expect] names, and the
-- concurrency units (Haskell threads) it really created.
data Outcome = Outcome [(String, Int)] !Int

instance NFData Outcome where
  rnf (Outcome values created) = rnf values `seq` rnf created

-- | A request the kit cannot serve, or a run that went wrong: its message.
newtype KitError = KitError String

instance Show KitError where
  show (KitError message) = message

instance Exception KitError

-- | An integer parameter.
int :: Params -> String -> IO Int
int params name = maybe (throwIO (KitError ("parameter " ++ name ++ " is missing or not an integer"))) pure
  (parseMaybe (.: fromString name) params)

-- | An unbounded FIFO between units.
data Queue a = Queue { push :: a -> IO (), pop :: IO a }

-- | A one-slot mailbox: putBox waits while it is full, takeBox while it is empty.
data Box a = Box { putBox :: a -> IO (), takeBox :: IO a }

-- | What the workloads written once for several mechanisms are written
-- against: how a unit starts (the action it returns awaits the unit's result
-- and rethrows its exception), and the queues and boxes units talk through.
data Prims = Prims
  { fork :: forall a. IO a -> IO (IO a)
  , newQueue :: forall a. IO (Queue a)
  , newBox :: forall a. IO (Box a)
  }

-- | forkIO threads; an MVar for each unit's result, Chan queues, MVar boxes.
forkio :: Prims
forkio = Prims
  { fork = \unit -> do
      done <- newEmptyMVar
      _ <- forkFinally unit (putMVar done)
      pure (takeMVar done >>= either throwIO pure)
  , newQueue = (\c -> Queue (writeChan c) (readChan c)) <$> newChan
  , newBox = (\v -> Box (putMVar v) (takeMVar v)) <$> newEmptyMVar
  }

-- | forkIO threads that talk only through STM: a TMVar for each unit's
-- result, TQueue queues, TMVar boxes.
stm :: Prims
stm = Prims
  { fork = \unit -> do
      done <- newEmptyTMVarIO
      _ <- forkFinally unit (atomically . putTMVar done)
      pure (atomically (takeTMVar done) >>= either throwIO pure)
  , newQueue = (\q -> Queue (atomically . writeTQueue q) (atomically (readTQueue q))) <$> newTQueueIO
  , newBox = (\v -> Box (atomically . putTMVar v) (atomically (takeTMVar v))) <$> newEmptyTMVarIO
  }

-- | Runs the actions in order and sums the Ints they return, adding each as it comes.
foldStrict :: [IO Int] -> IO Int
foldStrict = foldM (\total next -> (total +) <$!> next) 0
