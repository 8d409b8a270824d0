/** Execution strategies over a producer of tasks: produce-consume, produce-execute-consume, execute-produce-consume (eat what you kill) and adaptive. */
package dev.quarry.core.strategy;
