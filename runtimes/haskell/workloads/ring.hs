-- | Ring: `nodes` units form a ring, each knowing the next. The first unit
-- starts a token whose count is 0; every pass to the next unit adds one to
-- the count. When the token reaches the first unit for the `laps`-th time,
-- the first unit stops it and reports its count; then every unit is stopped
-- and awaited.
--
-- Each unit's mailbox is a box: the token is the only message in the ring, so
-- it never finds the next box full. A box holds Just a count, or Nothing: stop.
module Workloads.Ring (mechanisms) where

import Control.Exception (throwIO)
import Control.Monad (replicateM)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", ring forkio), ("stm", ring stm)]

-- | The first unit: passes the token on until its last lap, then returns its count.
lead :: Int -> Box (Maybe Int) -> Box (Maybe Int) -> IO Int
lead laps own next = putBox next (Just 1) >> lap 1
  where
    lap n = takeBox own >>= maybe (throwIO (KitError "ring: the first unit got a stop")) (\count ->
      if n == laps then pure count else putBox next (Just $! count + 1) >> lap (n + 1))

-- | Every other unit: passes the token on until it is stopped.
relay :: Box (Maybe Int) -> Box (Maybe Int) -> IO ()
relay own next = takeBox own >>= maybe (pure ()) (\count -> putBox next (Just $! count + 1) >> relay own next)

ring :: Prims -> Mechanism
ring prims params = do
  nodes <- int params "nodes"
  laps <- int params "laps"
  pure Run
    { slots = nodes, counting = Stamped
    , timed = \census -> do
        boxes <- replicateM nodes (newBox prims)
        -- Each unit's own box and the next unit's.
        let links = zip boxes (drop 1 boxes ++ take 1 boxes)
        leader <- fork prims census (uncurry (lead laps) (head links))
        relays <- mapM (fork prims census . uncurry relay) (drop 1 links)
        hops <- leader
        mapM_ ((`putBox` Nothing) . fst) (drop 1 links)
        sequence_ relays
        pure (Outcome [("hops", hops)] [])
    }
