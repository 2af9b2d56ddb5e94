{-# LANGUAGE BangPatterns #-}
-- | Ping-pong: `pairs` pairs of units at once; in each pair a pinger sends a
-- count, starting at 0, to its ponger, which sends back the count plus one;
-- the pinger sends that count plus one again, until it has had `rounds`
-- replies. Each pinger then stops its ponger and reports the last count it
-- received; the caller awaits every unit and sums the counts.
--
-- As in ring, each unit's mailbox is a box: a pair has one message in
-- flight, so it never finds the other's box full. The ponger's box holds
-- Just a count, or Nothing: stop.
module Workloads.PingPong (mechanisms) where

import Control.Monad (replicateM)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", pingPong forkio), ("stm", pingPong stm)]

-- | The pinger: sends a count and awaits the reply, `rounds` times; then
-- stops the ponger and returns the last reply.
ping :: Int -> Box Int -> Box (Maybe Int) -> IO Int
ping rounds own ponger = round' 1 0
  where
    round' n !count = do
      putBox ponger (Just count)
      reply <- takeBox own
      if n == rounds then reply <$ putBox ponger Nothing else round' (n + 1) (reply + 1)

-- | The ponger: answers every count with the next one until it is stopped.
pong :: Box (Maybe Int) -> Box Int -> IO ()
pong own pinger = takeBox own >>= maybe (pure ()) (\count -> (putBox pinger $! count + 1) >> pong own pinger)

pingPong :: Prims -> Mechanism
pingPong prims params = do
  pairs <- int params "pairs"
  rounds <- int params "rounds"
  pure Run
    { slots = 2 * pairs, counting = Stamped
    , timed = \census -> do
        games <- replicateM pairs $ do
          pingerBox <- newBox prims
          pongerBox <- newBox prims
          ponger <- fork prims census (pong pongerBox pingerBox)
          pinger <- fork prims census (ping rounds pingerBox pongerBox)
          pure (pinger <* ponger)
        count <- foldStrict games
        pure (Outcome [("count", count)] [])
    }
