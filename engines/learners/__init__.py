"""Learners of weights other than TC-TD: the Klein-Friedmann Q-learner (kf_q)."""
