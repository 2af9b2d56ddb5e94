{-# LANGUAGE BangPatterns #-}
-- | Mailbox: a sender unit sends `messages` messages, the payloads
-- 1..`messages` in order, to a receiver unit's mailbox (Kit's queue, holding
-- at most `capacity` messages, 0: no bound). The receiver takes exactly
-- `messages` messages, counting and summing them and adding k x payload of
-- its k-th message (k from 1) to a checksum modulo 1,000,000,007, and hands
-- its totals back to the caller.
--
-- Evidence: blocked = sends that found the mailbox full + takes that found
-- it empty, each unit counting its own in a tally of its own.
module Workloads.Mailbox (mechanisms) where

import Control.Monad (forM_)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", mailbox forkio), ("stm", mailbox stm)]

modulus :: Int
modulus = 1000000007

-- | Sends the payloads in order: the sends that waited.
send :: Int -> Queue Int -> IO Int
send messages q = do
  t <- newTally
  forM_ [1 .. messages] (push q t)
  tallied t

-- | What the receiver hands back: count, sum, the ordered checksum, takes that waited.
data Received = Received !Int !Int !Int !Int

-- | Takes `messages` messages.
receive :: Int -> Queue Int -> IO Received
receive messages q = newTally >>= loop 0 0 0
  where
    loop !count !total !ordered t
      | count == messages = Received count total ordered <$> tallied t
      | otherwise = pop q t >>= \v ->
          let k = count + 1 in loop k (total + v) ((ordered + k * v) `mod` modulus) t

mailbox :: Prims -> Mechanism
mailbox prims params = do
  messages <- int params "messages"
  capacity <- int params "capacity"
  pure Run
    { slots = 2, counting = Stamped
    , timed = \census -> do
        q <- newQueue prims capacity
        sender <- fork prims census (send messages q)
        receiver <- fork prims census (receive messages q)
        sent <- sender
        Received count total ordered taken <- receiver
        pure (Outcome [("count", count), ("sum", total), ("ordered", ordered)]
                      [("blocked", Just (sent + taken))])
    }
