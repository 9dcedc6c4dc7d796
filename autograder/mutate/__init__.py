"""Mutation analysis of a hidden suite: which bugs would it miss? (docs/MUTATION.md)

    autograder mutate ASSIGNMENT [--count N] [--seed K] [--out DIR] [--jobs J] [--full]
                               [--scheduler tcp://HOST:PORT]
"""
