/**
 * The drag-and-drop wiring of a drop zone (Home's folder drop, the Sessions import box):
 * `dragging` while something is held over it, and the handlers to spread on the element. The
 * drop itself is the caller's; the browser's default (opening the file) is always prevented.
 *
 * @example
 * const drop = useDropTarget((event) => takeFiles(event.dataTransfer));
 * <div className={drop.dragging ? 'dragging' : ''} {...drop.handlers} />
 */
import { useState, type DragEvent } from 'react';

export function useDropTarget(onDrop: (event: DragEvent) => void) {
  const [dragging, setDragging] = useState(false);
  return {
    dragging,
    handlers: {
      onDragOver(event: DragEvent) {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDragging(true);
      },
      onDragLeave() {
        setDragging(false);
      },
      onDrop(event: DragEvent) {
        event.preventDefault();
        setDragging(false);
        onDrop(event);
      },
    },
  };
}
